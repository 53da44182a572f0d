import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { FetchResult, ResponseResult } from "../../core/model/index.ts";
import { decideUrlOutcome, unfetchedRow } from "./url-outcome.ts";

const NOW = 1_750_000_000_000;
const URL = "http://a.test/page";

const queued = unfetchedRow({ partition: 0, url: URL, host: "a.test", depth: 1 });

function response(extra: Partial<ResponseResult>): ResponseResult {
  return {
    taskId: "t1",
    kind: "response",
    taskKind: "page",
    url: URL,
    host: "a.test",
    partition: 0,
    status: 200,
    startedAt: NOW - 10,
    endedAt: NOW,
    linksFound: 0,
    bytes: 0,
    ...extra,
  };
}

const decide = (result: FetchResult) => decideUrlOutcome(queued, result, { now: NOW, isHomePage: false, redirectHops: 0 }, DEFAULT_POLICY);

test("url outcome - a noindex page is fetched, and its URL's note says noindex", () => {
  const out = decide(response({ fingerprint: "f", note: "noindex" }));
  expect(out.row).toMatchObject({ state: "fetched", lastStatus: 200, note: "noindex" });
  expect(out.dequeue).toBe(true);
});

test("url outcome - a redirect whose Location was unusable is redirected nowhere, and its note says why", () => {
  const out = decide(response({ status: 302, note: "bad-location: unparseable" }));
  expect(out.row).toMatchObject({ state: "redirected", note: "bad-location: unparseable" });
  expect(out.redirectTo).toBeUndefined();
  expect(out.counters).toEqual(["frontier.redirect-without-location"]);
});

test("url outcome - a page without a note keeps none, and a duplicate's note names the original", () => {
  expect(decide(response({ fingerprint: "f" })).row.note).toBeNull();
  expect(decide(response({ fingerprint: "f", duplicateOf: "http://a.test/" })).row).toMatchObject({
    state: "duplicate",
    note: "duplicate of http://a.test/",
  });
});

test("url outcome - a network error is a failure noted by its kind; a skip is final, noted by its reason", () => {
  const failed = decide({ ...response({}), kind: "network-error", status: 0, error: "connect-timeout" });
  expect(failed.row).toMatchObject({ state: "retry-wait", failures: 1, note: "connect-timeout" });
  expect(failed.reschedule?.dueAt).toBe(NOW + DEFAULT_POLICY.retryDelaysMs[0]!);
  const skipped = decide({ ...response({}), kind: "skipped", status: 0, error: "blocked-address" });
  expect(skipped.row).toMatchObject({ state: "gone", note: "blocked-address" });
  expect(skipped.reschedule).toBeUndefined();
});
