import { expect, test } from "bun:test";
import { requireDeno, startNode, startRig } from "./fetch-node-harness.ts";
import { fetchNodeScenario } from "./fetch-node-scenario.ts";

test("fetch node on Deno - the same files run with narrow permissions: tasks from JetStream, links and results published, WARC written, clean stop", async () => {
  requireDeno();
  await fetchNodeScenario("deno");
}, 90_000);

test("fetch node on Deno - every permission of the documented command is needed: without one the node refuses to start", async () => {
  requireDeno();
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
}, 90_000);
