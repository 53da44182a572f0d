/**
 * What the WHATWG URL parser does to hostile hosts, on Bun and on Deno (the fetch node runs on both). The
 * address policy does not rely on the parser's rewriting (core/net parses every notation itself); this
 * test shows that both runtimes rewrite each hostile host the same way, and that the policy's verdict on
 * the parsed host is the verdict on the raw one, on both. Deno must be installed (CI installs it).
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { hostileUrls } from "../support/hostile-urls.ts";

const probe = join(import.meta.dir, "url-hosts-probe.ts");
const root = join(import.meta.dir, "..", "..");

function run(cmd: string[]): Array<{ url: string; hostname: string | null; verdict: string | null }> {
  const result = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw new Error(`${cmd[0]} could not run (${result.error.message}); install it: npm install -g deno@2.9.6`);
  if (result.status !== 0) throw new Error(`${cmd.join(" ")} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

test("url hosts - Bun and Deno parse every hostile host alike, and the address policy refuses each on both", () => {
  const hostile = hostileUrls({ port: 8080 }).filter((u) => !u.resolvesTo);
  const urls = JSON.stringify(hostile.map((u) => u.url));
  const onBun = run([process.execPath, probe, urls]);
  const onDeno = run(["deno", "run", "--no-lock", "--node-modules-dir=manual", probe, urls]);
  expect(onDeno).toEqual(onBun);
  for (const [i, h] of hostile.entries()) {
    const got = onBun[i]!;
    // A zone id is not a URL to either parser; every other hostile host is refused with its reason.
    const expected = h.parses === false ? { hostname: null, verdict: null } : { hostname: expect.any(String), verdict: h.reason };
    expect({ url: h.url, hostname: got.hostname, verdict: got.verdict }).toEqual({ url: h.url, ...expected });
  }
});
