/**
 * `crawlctl` without a coordinator to talk to: every cluster command exits non-zero, promptly, with one
 * line on stderr that names the address and says it is unavailable, and prints nothing on stdout (a
 * script reading `--json` must not take an error for an answer). Also: a coordinator that accepts the
 * connection but never answers ends in the command's deadline, and no address at all is a usage error.
 */
import { describe, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import { refusedPort } from "../../testweb/index.ts";
import { runCrawlctl } from "./harness.ts";

const COMMANDS = [
  ["status"],
  ["nodes"],
  ["ring"],
  ["seed", "add", "http://site0.test/"],
  ["host", "show", "site0.test"],
  ["host", "pause", "site0.test"],
  ["url", "explain", "http://site0.test/"],
  ["node", "drain", "frontier-1"],
];

describe("crawlctl: an unreachable coordinator", () => {
  test("every cluster command fails fast with a clear error and a non-zero exit when nothing listens", async () => {
    const { port } = await refusedPort();
    const address = `127.0.0.1:${port}`;
    for (const cmd of COMMANDS) {
      const r = await runCrawlctl([...cmd, "--json", "--coordinator", address, "--token", "0123456789abcdef0123"]);
      const what = cmd.join(" ");
      expect({ what, code: r.code, stdout: r.stdout }).toEqual({ what, code: 3, stdout: "" });
      expect(r.stderr).toContain(`coordinator at ${address} is unavailable`);
      expect(r.stderr).toMatch(/ECONNREFUSED/);
      expect(r.stderr.trim().split("\n").length).toBe(1);
      // Refused at once: not left to wait for the call's deadline.
      expect(r.stderr).not.toContain("did not answer in time");
    }
  }, 60_000);

  test("the coordinator address may come from CRAWLCTL_COORDINATOR, and without one crawlctl says how to give it", async () => {
    const { port } = await refusedPort();
    const fromEnv = await runCrawlctl(["status"], 20_000, { CRAWLCTL_COORDINATOR: `127.0.0.1:${port}` });
    expect(fromEnv.code).toBe(3);
    expect(fromEnv.stderr).toContain(`127.0.0.1:${port}`);

    const none = await runCrawlctl(["status"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--coordinator HOST:PORT or set CRAWLCTL_COORDINATOR/);
  }, 30_000);

  test("a coordinator that accepts connections but never answers ends in the deadline with a non-zero exit", async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((s) => {
      sockets.add(s);
      s.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const r = await runCrawlctl(["status", "--coordinator", address, "--token", "0123456789abcdef0123"], 30_000);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      // Its own deadline ended the wait (runCrawlctl would otherwise have killed it, with another exit).
      expect(r.stderr).toContain(`crawlctl: coordinator at ${address} did not answer in time`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 40_000);
});
