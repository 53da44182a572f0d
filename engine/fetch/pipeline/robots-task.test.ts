import { expect, test } from "bun:test";
import type { FetchTask } from "../../../core/model/index.ts";
import { MemoryContentIndex } from "../../../adapters/memory/index.ts";
import type { FetchOutcome, FetchRequest } from "../http/index.ts";
import { runRobotsTask } from "./robots-task.ts";
import type { WorkerDeps } from "./types.ts";

const T0 = 1_800_000_000_000;

function task(hostGapMs: number): FetchTask {
  return {
    taskId: "r1",
    kind: "robots",
    url: "http://a.test/robots.txt",
    host: "a.test",
    partition: 0,
    depth: 0,
    redirectHops: 0,
    hostGapMs,
    issuedAt: T0,
  };
}

function response(url: string, status: number, startedAt: number, endedAt: number, headers: Record<string, string> = {}): FetchOutcome {
  const body = new TextEncoder().encode(status === 200 ? "User-agent: *\nDisallow: /x/\n" : "");
  return { kind: "response", url, status, headers, body, truncated: false, startedAt, endedAt, requestHeaders: {}, httpVersion: "1.1" };
}

/** A worker whose fetcher answers from `answers` in order and whose sleeps are only recorded. */
function deps(answers: Array<(req: FetchRequest) => FetchOutcome>) {
  const sleeps: number[] = [];
  const asked: string[] = [];
  const d: WorkerDeps = {
    fetcher: { fetch: async (req) => (asked.push(req.url), answers.shift()!(req)) },
    content: new MemoryContentIndex(),
    store: { write: async () => undefined },
    agentToken: "testbot",
    gap: { multiplier: 10, marginMs: 5 },
    sleep: async (ms) => void sleeps.push(ms),
    now: () => T0,
  };
  return { d, sleeps, asked };
}

test("robots task - a hop on the same host waits the larger of the host's gap and 10 x the hop's fetch time, plus the margin", async () => {
  const { d, sleeps, asked } = deps([
    (r) => response(r.url, 301, T0, T0 + 120.04, { location: "/robots-real.txt" }),
    (r) => response(r.url, 200, T0 + 2000, T0 + 2010),
  ]);
  const out = await runRobotsTask(d, task(1005));
  expect(asked).toEqual(["http://a.test/robots.txt", "http://a.test/robots-real.txt"]);
  // 10 x 120.04 ms = 1,200.4 ms, rounded up, and the margin: more than the task's 1,005 ms gap.
  expect(sleeps).toEqual([1206]);
  expect(out.result.robots?.verdict).toBe("parse");
  expect([out.result.startedAt, out.result.endedAt]).toEqual([T0, T0 + 2010]);
  const fast = deps([
    (r) => response(r.url, 302, T0, T0 + 1, { location: "/robots-real.txt" }),
    (r) => response(r.url, 200, T0 + 2000, T0 + 2001),
  ]);
  await runRobotsTask(fast.d, task(1005));
  expect(fast.sleeps).toEqual([1005]);
});

test("robots task - refused at the first hop it is a skip (the host was not asked); refused at a later hop it is not", async () => {
  const refused = (req: FetchRequest): FetchOutcome => ({
    kind: "error",
    url: req.url,
    error: "blocked-address",
    message: "private",
    startedAt: T0 + 5000,
    endedAt: T0 + 5000,
  });
  const first = deps([refused]);
  expect((await runRobotsTask(first.d, task(1005))).result.kind).toBe("skipped");

  const later = deps([(r) => response(r.url, 301, T0, T0 + 10, { location: "http://10.0.0.1/robots.txt" }), refused]);
  const out = await runRobotsTask(later.d, task(1005));
  // The host answered the first hop: its gap must run from that request, so this is not a skip but the
  // host's own answer, and its rules cannot be read where they point.
  expect(out.result).toMatchObject({ kind: "response", status: 301, robots: { verdict: "disallow-all" } });
  expect([out.result.startedAt, out.result.endedAt]).toEqual([T0, T0 + 10]);

  // Two hops on the host, then a refused one: the host is free from the end of the second request.
  const twice = deps([
    (r) => response(r.url, 301, T0, T0 + 10, { location: "/moved.txt" }),
    (r) => response(r.url, 301, T0 + 2000, T0 + 2020, { location: "http://10.0.0.1/robots.txt" }),
    refused,
  ]);
  const after = await runRobotsTask(twice.d, task(1005));
  expect(twice.asked).toEqual(["http://a.test/robots.txt", "http://a.test/moved.txt", "http://10.0.0.1/robots.txt"]);
  expect(after.result).toMatchObject({ kind: "response", status: 301, robots: { verdict: "disallow-all" } });
  expect([after.result.startedAt, after.result.endedAt]).toEqual([T0, T0 + 2020]);
});
