import { expect, test } from "bun:test";
import { judgeAddresses } from "./address-violations.ts";
import type { RequestRecord } from "./types.ts";

function req(localAddress: string, host: string, startedAt: number, endedAt: number): RequestRecord {
  return { host, path: "/", method: "GET", via: "direct", startedAt, endedAt, status: 200, completed: true, headers: {}, localAddress };
}

test("address judge - a third request open at one address breaks a cap of 2, on any of its hosts", () => {
  const log = [req("127.0.0.2", "a.one.test", 0, 100), req("127.0.0.2", "b.two.test", 10, 100), req("127.0.0.2", "c.one.test", 20, 30)];
  const verdict = judgeAddresses(log, { maxInFlight: 2, gapMs: 0 });
  expect(verdict.violations).toHaveLength(1);
  expect(verdict.violations[0]).toContain("3 requests open at once");
  expect(verdict.mostOpen.get("127.0.0.2")).toBe(3);
});

test("address judge - requests that ended before the next arrived, or went to other addresses, do not count", () => {
  const log = [
    req("127.0.0.2", "a.one.test", 0, 10),
    req("127.0.0.2", "b.one.test", 10, 20),
    req("127.0.0.3", "c.one.test", 11, 50),
    req("127.0.0.2", "c.one.test", 25, 30),
  ];
  const verdict = judgeAddresses(log, { maxInFlight: 1, gapMs: 10 });
  expect(verdict.violations).toEqual([]);
  expect(verdict.mostOpen.get("127.0.0.2")).toBe(1);
  expect(verdict.requests.get("127.0.0.2")).toBe(3);
});

test("address judge - two arrivals at one address closer than the gap are a breach, with no tolerance", () => {
  const log = [req("127.0.0.2", "a.one.test", 0, 1), req("127.0.0.2", "b.two.test", 9.999, 11)];
  expect(judgeAddresses(log, { maxInFlight: 2, gapMs: 10 }).violations[0]).toContain("arrived 9.999 ms after");
});
