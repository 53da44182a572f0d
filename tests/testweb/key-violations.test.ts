import { expect, test } from "bun:test";
import { judgeKeys } from "./key-violations.ts";
import type { RequestRecord } from "./types.ts";

function req(host: string, startedAt: number, endedAt: number): RequestRecord {
  return { host, path: "/", method: "GET", via: "direct", startedAt, endedAt, status: 200, completed: true, headers: {} };
}
const domainOf = (r: RequestRecord) => r.host.split(".").slice(-2).join(".");

test("key judge - two hosts of one key open at once are a breach, even with no gap asked for", () => {
  const verdict = judgeKeys([req("a.one.test", 0, 100), req("b.one.test", 50, 120)], domainOf, 0);
  expect(verdict.violations).toHaveLength(1);
  expect(verdict.violations[0]).toContain("while it was still open");
  expect(verdict.hosts.get("one.test")).toBe(2);
});

test("key judge - the gap runs from the latest end of the key's earlier requests, with no tolerance", () => {
  // Another key's request in between changes nothing: c waits the gap after a's end.
  const log = [req("a.one.test", 0, 100), req("x.two.test", 10, 20), req("c.one.test", 199.999, 210)];
  expect(judgeKeys(log, domainOf, 100).violations[0]).toContain("99.999 ms after it ended");
  expect(judgeKeys(log, domainOf, 99.999).violations).toEqual([]);
});

test("key judge - requests of other keys, or with no key, do not count", () => {
  const verdict = judgeKeys(
    [req("a.one.test", 0, 100), req("b.two.test", 10, 20), req("c.three.test", 0, 5)],
    (r) => (r.host.startsWith("c.") ? undefined : domainOf(r)),
    0,
  );
  expect(verdict.violations).toEqual([]);
  expect([...verdict.requests.keys()].sort()).toEqual(["one.test", "two.test"]);
});
