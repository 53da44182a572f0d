import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "node:http";
import { proxyGet } from "./client.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import { SITE_ROBOTS } from "./site.ts";
import type { HostBehaviour, RequestRecord, RobotsPolicy, ViolationKind } from "./types.ts";
import { findViolations, retryAfterMs } from "./violations.ts";

const T0 = 1_700_000_000_000;
const POLICIES: Record<string, RobotsPolicy> = {
  "a.test": { kind: "rules", text: SITE_ROBOTS },
  "b.test": { kind: "rules", text: SITE_ROBOTS },
  "delay.test": { kind: "rules", text: "User-agent: *\nCrawl-delay: 2\n" },
  "down.test": { kind: "disallow-all", why: "500" },
  "moved.test": { kind: "rules", text: "User-agent: *\nDisallow: /secret/\n", paths: ["/robots.txt", "/robots-real.txt"] },
};

/** A record at T0 + start … T0 + end (ms); `end` Infinity for a request still open. */
function rec(host: string, path: string, start: number, end: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    host,
    path,
    method: "GET",
    via: "proxy",
    startedAt: T0 + start,
    endedAt: T0 + end,
    status: 200,
    completed: end !== Number.POSITIVE_INFINITY,
    headers: {},
    ...extra,
  };
}

const STRICT = { minGapMs: 1000, gapMultiplier: 0 };

function kinds(log: RequestRecord[], policy: Parameters<typeof findViolations>[2] = STRICT): string[] {
  return findViolations(log, (h) => POLICIES[h], policy).map((v) => `${v.kind} ${v.host}${v.path}`);
}

describe("violation checker on crafted logs", () => {
  test("finds nothing in a polite crawl of two interleaved hosts, gaps of exactly the minimum included", () => {
    const log = [
      rec("a.test", "/robots.txt", 0, 5),
      rec("b.test", "/robots.txt", 2, 6),
      rec("a.test", "/", 1005, 1010), // robots.txt is a request like any other: the gap runs after it too
      rec("b.test", "/", 1007, 1009),
      rec("a.test", "/page/1", 2010, 2020),
      rec("b.test", "/page/2", 2009, 2015),
      rec("a.test", "/private/public-notes", 3020, 3030),
      rec("a.test", "/page/2", 4030, 4031),
    ];
    expect(findViolations(log, (h) => POLICIES[h], STRICT)).toEqual([]);
  });

  test("flags two requests in flight to one host at once", () => {
    const log = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/page/1", 1001, 1050), rec("a.test", "/page/2", 1030, 1060)];
    expect(kinds(log)).toEqual(["concurrent a.test/page/2"]);
  });

  test("flags a request made while an earlier one never finished", () => {
    const log = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/page/1", 1010, Infinity), rec("a.test", "/page/2", 5000, 5001)];
    const [v] = findViolations(log, (h) => POLICIES[h], STRICT);
    expect(v?.kind).toBe("concurrent");
    expect(v?.message).toContain("never finished");
    expect(v?.previous?.path).toBe("/page/1");
  });

  test("measures the gap from the request that ended last, not the one that started last", () => {
    const log = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/page/1", 1010, 1900), // long
      rec("a.test", "/page/2", 1020, 1030), // overlaps: concurrent
      rec("a.test", "/page/3", 2200, 2210), // 300 ms after /page/1 ended
    ];
    expect(kinds(log)).toEqual(["concurrent a.test/page/2", "gap a.test/page/3"]);
  });

  test("flags a gap short by any amount, with a readable message and the shortfall", () => {
    const log = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/", 1001, 1100), rec("a.test", "/page/1", 1600, 1610)];
    const [v] = findViolations(log, (h) => POLICIES[h], STRICT);
    expect(v?.kind).toBe("gap");
    expect(v?.message).toBe("a.test: GET /page/1 started 500 ms after / ended; needs ≥ 1000 ms (minGapMs), 500 ms short");
    expect(v?.shortByMs).toBe(500);
    // No tolerance: a hundredth of a millisecond short is short, and says so.
    const hair = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/", 1000.99, 1002)];
    const [h] = findViolations(hair, (x) => POLICIES[x], STRICT);
    expect(h?.message).toBe("a.test: GET / started 999.99 ms after /robots.txt ended; needs ≥ 1000 ms (minGapMs), 0.01 ms short");
    expect(h?.shortByMs).toBeCloseTo(0.01, 4);
  });

  test("applies gapMultiplier to the previous completed fetch only", () => {
    const slow = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/", 1100, 1300), rec("a.test", "/page/1", 2500, 2501)];
    expect(kinds(slow, { minGapMs: 1000, gapMultiplier: 0 })).toEqual([]);
    expect(kinds(slow, { minGapMs: 1000, gapMultiplier: 10 })).toEqual(["gap a.test/page/1"]);
    expect(kinds([...slow.slice(0, 2), rec("a.test", "/page/1", 3300, 3301)], { minGapMs: 1000, gapMultiplier: 10 })).toEqual([]);
    const aborted = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/", 1100, 1300, { completed: false }),
      rec("a.test", "/page/1", 2500, 2501),
    ];
    expect(kinds(aborted, { minGapMs: 1000, gapMultiplier: 10 })).toEqual([]);
  });

  test("counts robots.txt as a request: the page right after it keeps the gap", () => {
    const log = [rec("a.test", "/robots.txt", 0, 1), rec("a.test", "/", 2, 3)];
    expect(kinds(log)).toEqual(["gap a.test/"]);
  });

  test("enforces the host's Crawl-delay", () => {
    const log = [rec("delay.test", "/robots.txt", 0, 1), rec("delay.test", "/", 2001, 2002), rec("delay.test", "/a", 3502, 3503)];
    expect(kinds(log)).toEqual(["crawl-delay delay.test/a"]);
  });

  test("enforces Retry-After in seconds and as an HTTP date", () => {
    const secs = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/", 1001, 1002, { status: 429, retryAfter: "3" }),
      rec("a.test", "/", 3002, 3003),
    ];
    expect(kinds(secs)).toEqual(["retry-after a.test/"]);
    const date = new Date(T0 + 7000).toUTCString();
    const dated = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/", 1001, 1002, { status: 503, retryAfter: date }),
      rec("a.test", "/", 5000, 5001),
      rec("a.test", "/", 10_000, 10_001),
    ];
    expect(kinds(dated)).toEqual(["retry-after a.test/"]);
    expect(retryAfterMs(date, T0 + 1000)).toBe(6000);
    expect(retryAfterMs("soon", T0)).toBeUndefined();
  });

  test("an HTTP-date Retry-After is judged by the wait the recorder read on the wall clock when it answered", () => {
    // The log's clock and the wall clock part when the wall clock is stepped: the same date then asks for
    // 6 s by the log's clock and 2 s by the wall clock at the answer; the server asked for the latter.
    const date = new Date(T0 + 7000).toUTCString();
    const log = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/", 1001, 1002, { status: 503, retryAfter: date, retryAfterWaitMs: 2000 }),
      rec("a.test", "/", 3001, 3002),
      rec("a.test", "/", 4002, 4003),
    ];
    expect(kinds(log)).toEqual(["retry-after a.test/"]);
    const [v] = findViolations(log, (h) => POLICIES[h], STRICT);
    expect({ at: v?.request.startedAt, shortByMs: v?.shortByMs }).toEqual({ at: T0 + 3001, shortByMs: 1 });
  });

  test("flags paths robots.txt disallows, for the * group or the given agent", () => {
    const log = [
      rec("a.test", "/robots.txt", 0, 1),
      rec("a.test", "/private/3", 1001, 1002),
      rec("a.test", "/docs/1.pdf", 2002, 2003),
      rec("a.test", "/page/1", 4000, 4001),
    ];
    expect(kinds(log)).toEqual(["disallowed a.test/private/3", "disallowed a.test/docs/1.pdf"]);
    expect(kinds(log, { ...STRICT, userAgent: "evilbot" })).toHaveLength(3);
  });

  test("flags pages requested before robots.txt was fetched or finished", () => {
    const never = [rec("a.test", "/", 0, 1)];
    expect(kinds(never)).toEqual(["before-robots a.test/"]);
    const early = [rec("a.test", "/robots.txt", 0, Infinity), rec("b.test", "/robots.txt", 0, 1), rec("b.test", "/", 1001, 1002)];
    expect(kinds(early)).toEqual([]);
    const racing = [rec("moved.test", "/robots.txt", 0, 1), rec("moved.test", "/", 1001, 1002)];
    expect(kinds(racing)).toEqual(["before-robots moved.test/"]);
  });

  test("accepts robots.txt fetched through its redirect and then honours the target's rules", () => {
    const log = [
      rec("moved.test", "/robots.txt", 0, 1, { status: 301 }),
      rec("moved.test", "/robots-real.txt", 1001, 1002),
      rec("moved.test", "/", 2002, 2004),
      rec("moved.test", "/secret/1", 3004, 3005),
    ];
    expect(kinds(log)).toEqual(["disallowed moved.test/secret/1"]);
  });

  test("flags any page of a host whose robots.txt failed", () => {
    const log = [
      rec("down.test", "/robots.txt", 0, 1, { status: 500 }),
      rec("down.test", "/", 2000, 2001),
      rec("down.test", "/robots.txt", 4000, 4001),
    ];
    expect(kinds(log)).toEqual(["robots-unavailable down.test/"]);
  });

  test("checks only timing for hosts it has no robots policy for", () => {
    const log = [rec("x.test", "/", 0, 1), rec("x.test", "/a", 100, 101)];
    expect(kinds(log)).toEqual(["gap x.test/a"]);
  });

  test("returns violations in the order the offending requests started", () => {
    const log = [rec("b.test", "/", 5, 6), rec("a.test", "/", 1, 3), rec("a.test", "/x", 2, 4)];
    expect(kinds(log)).toEqual(["before-robots a.test/", "concurrent a.test/x", "before-robots a.test/x", "before-robots b.test/"]);
  });
});

describe("violation checker on the server's own log", () => {
  let web: TestWeb;
  let agent: Agent;
  const released: Array<() => void> = [];
  let arrived: () => void = () => {};
  const gate: HostBehaviour = {
    description: "holds each response until released",
    robots: { kind: "allow-all", why: "test" },
    serve(_req, res) {
      released.push(() => res.end("ok"));
      arrived();
    },
  };
  const get = (url: string) => proxyGet(web.proxyUrl, url, { agent });
  const found = (kind: ViolationKind, minGapMs = 1000) => web.violations({ minGapMs, gapMultiplier: 0 }).filter((v) => v.kind === kind);

  beforeAll(async () => {
    web = await startTestWeb({ hosts: 2, special: true, extraHosts: { "gate.test": gate } });
    agent = new Agent({ keepAlive: true });
  });
  afterAll(async () => {
    agent.destroy();
    await web.close();
  });

  test("flags nothing for a client that waits the gap after each response it received, plus a margin", async () => {
    web.clearRequests();
    // The client's own politeness gap, the behaviour under test, not a wait for readiness: 60 ms from the
    // end it saw, and 5 ms on top, the margin the crawler keeps for the server finishing a little earlier.
    for (const path of ["/robots.txt", "/", "/page/1"]) {
      await get(`http://site0.test${path}`);
      await Bun.sleep(65);
    }
    expect(web.violations({ minGapMs: 60, gapMultiplier: 10 })).toEqual([]);
  });

  test("flags a too-short gap and a page before robots.txt", async () => {
    web.clearRequests();
    await get("http://site1.test/");
    await get("http://site1.test/robots.txt");
    await get("http://site1.test/page/1");
    await get("http://site1.test/page/2");
    expect(found("before-robots").map((v) => v.path)).toEqual(["/"]);
    // robots.txt is a request like any other: it keeps its distance from the page before it, and the
    // page after it from it.
    expect(found("gap").map((v) => v.path)).toEqual(["/robots.txt", "/page/1", "/page/2"]);
  });

  test("flags two requests in flight to one host", async () => {
    web.clearRequests();
    const both = new Promise<void>((resolve) => {
      arrived = () => released.length === 2 && resolve();
    });
    const a = get("http://gate.test/one");
    const b = get("http://gate.test/two");
    await both;
    for (const release of released.splice(0)) release();
    await Promise.all([a, b]);
    expect(found("concurrent")).toHaveLength(1);
  });

  test("flags disallowed paths and pages of a host whose robots.txt failed", async () => {
    web.clearRequests();
    await get("http://site0.test/robots.txt");
    await get("http://site0.test/private/1");
    await get("http://robots-500.test/robots.txt");
    await get("http://robots-500.test/");
    // This host resets the connection on robots.txt: the request fails, and the log still has it.
    await expect(proxyGet(web.proxyUrl, "http://robots-unreachable.test/robots.txt")).rejects.toThrow();
    await get("http://robots-unreachable.test/a");
    expect(found("disallowed").map((v) => `${v.host}${v.path}`)).toEqual(["site0.test/private/1"]);
    expect(found("robots-unavailable").map((v) => v.host)).toEqual(["robots-500.test", "robots-unreachable.test"]);
  });

  test("flags ignoring Crawl-delay and Retry-After", async () => {
    web.clearRequests();
    await get("http://robots-delay.test/robots.txt");
    await get("http://robots-delay.test/");
    await get("http://robots-delay.test/page/1");
    await get("http://ratelimit.test/robots.txt");
    expect((await get("http://ratelimit.test/")).status).toBe(429);
    await get("http://ratelimit.test/");
    expect(found("crawl-delay", 0).map((v) => v.path)).toEqual(["/", "/page/1"]);
    expect(found("retry-after", 0).map((v) => v.host)).toEqual(["ratelimit.test"]);
  });
});
