import { expect, test } from "bun:test";
import type { ResponseResult } from "../model/index.ts";
import {
  captureJson,
  captureLimitOf,
  captureLookup,
  captureOf,
  checkedCaptureLimit,
  decodeCaptures,
  MAX_CAPTURES_PER_URL,
  withCapture,
} from "./index.ts";

const result = (i: number, extra: Partial<ResponseResult> = {}): ResponseResult => ({
  taskId: `t${i}`,
  kind: "response",
  taskKind: "page",
  url: "http://a.test/p",
  host: "a.test",
  partition: 3,
  status: 200,
  startedAt: 1_700_000_000_000 + i * 1000,
  endedAt: 1_700_000_000_000 + i * 1000 + 12.6,
  linksFound: 0,
  bytes: 10,
  fingerprint: "0123456789abcdef0123456789abcdef",
  contentType: "text/html; charset=utf-8",
  warc: { file: "crawl-20261204162046-00001.warc.gz", offset: 1000 * i, length: 700 + i },
  ...extra,
});

test("captures - a result that stored a record is a capture; one that stored none is not", () => {
  expect(captureOf(result(1))).toEqual({
    fetchedAt: 1_700_000_001_013,
    status: 200,
    contentType: "text/html; charset=utf-8",
    digest: "0123456789abcdef0123456789abcdef",
    job: "default",
    warc: { file: "crawl-20261204162046-00001.warc.gz", offset: 1000, length: 701 },
  });
  expect(captureOf(result(1, { warc: undefined }))).toBeUndefined();
});

test("captures - newest first, the last 8 kept, each about 150 bytes with a bare file name", () => {
  let encoded: string | null = null;
  for (let i = 1; i <= 11; i++) encoded = withCapture(encoded, captureOf(result(i))!);
  const kept = decodeCaptures(encoded);
  expect(kept).toHaveLength(MAX_CAPTURES_PER_URL);
  expect(kept.map((c) => c.warc.offset)).toEqual([11, 10, 9, 8, 7, 6, 5, 4].map((i) => i * 1000));
  // The per-URL byte cost docs/warc.md states.
  const one = withCapture(null, captureOf(result(1))!);
  expect(one.length).toBeLessThanOrEqual(160);
  expect(encoded!.length).toBeLessThanOrEqual(8 * 160);
});

test("captures - what a capture keeps is bounded, whatever a result carries", () => {
  const huge = captureOf(result(1, { contentType: "x".repeat(100_000), fingerprint: "f".repeat(100_000) }))!;
  expect(huge.contentType).toHaveLength(200);
  expect(huge.digest).toHaveLength(64);
  expect(captureOf(result(1, { warc: { file: "y".repeat(2_000), offset: 0, length: 1 } }))).toBeUndefined();
});

test("captures - a damaged value reads as no captures, never as an error", () => {
  expect(decodeCaptures("{not json")).toEqual([]);
  expect(decodeCaptures('[[1,2,"x"]]')).toEqual([]);
  expect(decodeCaptures(null)).toEqual([]);
  expect(decodeCaptures(withCapture("garbage", captureOf(result(1))!))).toHaveLength(1);
});

test("captures - the answer's shape: ISO time, null for no type or digest", () => {
  const c = captureOf(result(1, { status: 404, fingerprint: undefined, contentType: undefined }))!;
  expect(captureJson(c)).toEqual({
    timestamp: "2023-11-14T22:13:21.013Z",
    status: 404,
    contentType: null,
    digest: null,
    job: "default",
    warc: { file: "crawl-20261204162046-00001.warc.gz", offset: 1000, length: 701 },
  });
});

test("captures - a lookup takes any absolute http(s) URL, normalized; anything else, and a bad limit, is refused with a reason", () => {
  expect(captureLookup(" HTTP://A.test:80/p?b=2&a=1#x ")).toEqual({ url: "http://a.test/p?a=1&b=2", host: "a.test" });
  for (const bad of ["", "   ", "not a url", "ftp://a.test/x", `http://a.test/${"x".repeat(9000)}`]) {
    expect(() => captureLookup(bad)).toThrow(/^url: /);
  }
  expect(captureLimitOf(undefined)).toBe(1000);
  expect(captureLimitOf("3")).toBe(3);
  for (const bad of ["0", "-1", "1.5", "abc", "", "1001", "99999"]) expect(() => captureLimitOf(bad)).toThrow(/^limit: /);
  expect(checkedCaptureLimit(0)).toBe(1000);
  expect(() => checkedCaptureLimit(1001)).toThrow(/^limit: /);
});
