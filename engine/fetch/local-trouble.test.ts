import { expect, test } from "bun:test";
import type { Log } from "../../core/ports/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { LocalTrouble } from "./local-trouble.ts";

function setup() {
  const lines: string[] = [];
  const log: Log = {
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
    child: () => log,
  };
  const clock = { now: 0 };
  const counters = new Counters();
  const trouble = new LocalTrouble({ log, now: () => clock.now, counters });
  return { lines, clock, counters, trouble };
}

test("all is well: any number of fetches may start", () => {
  const { trouble } = setup();
  expect(trouble.troubled).toBe(false);
  expect(trouble.allowance()).toBe(Number.POSITIVE_INFINITY);
  expect(trouble.resumeAt).toBeUndefined();
});

test("a local failure stops new fetches for 1 s, then lets one probe out; a failed probe doubles the wait", () => {
  const { trouble, clock, lines, counters } = setup();
  trouble.failed("proxy-unreachable", "connect ECONNREFUSED 127.0.0.1:3128");
  // The burst already in flight fails too: one warning, the wait not stretched by it.
  trouble.failed("proxy-unreachable", "connect ECONNREFUSED 127.0.0.1:3128");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("warn fetching paused: the egress proxy refused the connection or could not be reached");
  expect(lines[0]).toContain("(connect ECONNREFUSED 127.0.0.1:3128)");
  expect(trouble.allowance()).toBe(0);
  expect(trouble.resumeAt).toBe(1_000);
  clock.now = 999;
  expect(trouble.allowance()).toBe(0);
  clock.now = 1_000;
  expect(trouble.allowance()).toBe(1);
  trouble.started();
  expect(trouble.allowance()).toBe(0);
  clock.now = 1_010;
  trouble.failed("proxy-unreachable", "again");
  expect(trouble.resumeAt).toBe(3_010);
  clock.now = 3_010;
  trouble.started();
  clock.now = 3_020;
  trouble.failed("proxy-unreachable", "again");
  expect(trouble.resumeAt).toBe(7_020);
  expect(lines).toHaveLength(1);
  expect(counters.toJSON()).toMatchObject({ "fetch.local.proxy-unreachable": 4, "fetch.local.episodes": 1 });
});

test("the wait grows to 30 s at most", () => {
  const { trouble, clock } = setup();
  trouble.failed("file-table", "EMFILE");
  for (let i = 0; i < 10; i++) {
    clock.now = trouble.resumeAt!;
    trouble.started();
    trouble.failed("file-table", "EMFILE");
  }
  expect(trouble.resumeAt! - clock.now).toBe(30_000);
});

test("the first fetch that gets through ends the trouble, and says so once", () => {
  const { trouble, clock, lines } = setup();
  trouble.failed("local-ports", "connect EADDRNOTAVAIL");
  clock.now = 2_500;
  trouble.succeeded();
  trouble.succeeded();
  expect(trouble.troubled).toBe(false);
  expect(trouble.allowance()).toBe(Number.POSITIVE_INFINITY);
  expect(lines.filter((l) => l.startsWith("info"))).toEqual(["info fetching again: the local trouble (local-ports) is over after 2.5 s"]);
  expect(lines[0]).toContain("--max-in-flight");
});

test("the same trouble again within a minute is not warned of twice; another cause is", () => {
  const { trouble, clock, lines } = setup();
  trouble.failed("resolver", "EAI_AGAIN");
  trouble.succeeded();
  clock.now = 30_000;
  trouble.failed("resolver", "EAI_AGAIN");
  trouble.succeeded();
  clock.now = 31_000;
  trouble.failed("kernel-buffers", "ENOBUFS");
  const warnings = lines.filter((l) => l.startsWith("warn"));
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toStartWith("warn fetching paused: the local resolver failed every name alike");
  expect(warnings[1]).toStartWith("warn fetching paused: the kernel had no buffers");
});

test("a probe that never ends either way does not hold fetching up for ever", () => {
  const { trouble, clock } = setup();
  trouble.failed("proxy-auth", "Proxy response (407)");
  clock.now = 1_000;
  trouble.started();
  expect(trouble.allowance()).toBe(0);
  clock.now = 31_000;
  expect(trouble.allowance()).toBe(1);
});
