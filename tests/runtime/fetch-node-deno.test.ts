import { expect, test } from "bun:test";
import { denoAvailable, startNode, startRig } from "./fetch-node-harness.ts";
import { fetchNodeScenario } from "./fetch-node-scenario.ts";

const hasDeno = denoAvailable();
if (!hasDeno) console.warn("fetch-node-deno.test.ts: SKIPPED: `deno` is not on PATH (install it: npm install -g deno@2.9.6)");

test.skipIf(!hasDeno)(
  "fetch node on Deno - the same files run with narrow permissions: tasks from JetStream, links and results published, WARC written, clean stop",
  async () => {
    await fetchNodeScenario("deno");
  },
  90_000,
);

test.skipIf(!hasDeno)(
  "fetch node on Deno - every permission of the documented command is needed: without one the node refuses to start",
  async () => {
    const rig = await startRig();
    try {
      const cases: Array<[string, RegExp]> = [
        ["--allow-net", /Requires net access/],
        ["--allow-env", /Requires env access/],
        ["--allow-read", /Requires read access/],
        ["--allow-write", /Requires write access/],
      ];
      for (const [flag, reason] of cases) {
        const node = startNode(rig, "deno", `perm-${flag.slice(8)}`, (cmd) => cmd.filter((a) => !a.startsWith(flag)));
        const code = await node.exited;
        // The flag names the case in a failure message; the output shows what Deno refused.
        expect({ flag, exitedWithError: code !== 0, denied: reason.test(node.output()) }).toEqual({
          flag,
          exitedWithError: true,
          denied: true,
        });
      }
    } finally {
      await rig.close();
    }
  },
  90_000,
);
