import { expect, test } from "bun:test";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import {
  CodecError,
  decodeDiscoveredLinks,
  decodeFetchResult,
  decodeFetchTask,
  decodeFetchTaskWithRegion,
  encodeDiscoveredLinks,
  encodeFetchResult,
  encodeFetchTask,
  fetchResultToProto,
} from "./index.ts";

const fullTask: FetchTask = {
  taskId: "t-0001-abc",
  kind: "page",
  url: "https://example.com/a?b=1",
  host: "example.com",
  partition: 4095,
  depth: 7,
  redirectHops: 2,
  etag: 'W/"abc"',
  lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
  previousFingerprint: "f".repeat(64),
  hostGapMs: 1500,
  issuedAt: 1_732_900_000_123,
  ownerEpoch: 7,
  job: 12,
};

const minimalTask: FetchTask = {
  taskId: "t-2",
  kind: "robots",
  url: "https://example.org/robots.txt",
  host: "example.org",
  partition: 0,
  depth: 0,
  redirectHops: 0,
  hostGapMs: 0,
  issuedAt: 0,
};

const pageResult: FetchResult = {
  taskId: "t-0001-abc",
  kind: "response",
  taskKind: "page",
  url: "https://example.com/a?b=1",
  host: "example.com",
  partition: 17,
  status: 200,
  startedAt: 1_732_900_000_123,
  endedAt: 1_732_900_000_456,
  fingerprint: "ab".repeat(32),
  simhash: "00ff00ff00ff00ff",
  etag: '"v2"',
  lastModified: "Thu, 22 Oct 2015 07:28:00 GMT",
  changed: false,
  nearDuplicateOf: "https://example.com/b",
  linksFound: 48,
  bytes: 25_000,
  truncated: true,
  job: 12,
};

test("codec - a fetch task survives the round trip, with every optional field set or absent", () => {
  for (const task of [fullTask, minimalTask]) {
    const back = decodeFetchTask(encodeFetchTask(task, "eu"));
    expect(back).toStrictEqual(task);
  }
  expect(decodeFetchTaskWithRegion(encodeFetchTask(fullTask, "us-east")).region).toBe("us-east");
});

test("codec - timestamps travel as int64 up to 2^53 and beyond 2^32, and fractional ms round", () => {
  const big = { ...minimalTask, issuedAt: Number.MAX_SAFE_INTEGER };
  expect(decodeFetchTask(encodeFetchTask(big, "eu")).issuedAt).toBe(Number.MAX_SAFE_INTEGER);
  const frac = { ...minimalTask, issuedAt: 1000.6, hostGapMs: 10.4 };
  const back = decodeFetchTask(encodeFetchTask(frac, "eu"));
  expect([back.issuedAt, back.hostGapMs]).toEqual([1001, 10]);
  const neg = { ...minimalTask, issuedAt: -5 };
  expect(decodeFetchTask(encodeFetchTask(neg, "eu")).issuedAt).toBe(-5);
});

test("codec - an int64 past 2^53 on the wire is refused rather than rounded", () => {
  const msg = pb.FetchTask.fromPartial({ taskId: "x", kind: pb.TaskKind.TASK_KIND_PAGE, issuedAtMs: 2n ** 60n });
  expect(() => decodeFetchTask(pb.FetchTask.encode(msg).finish())).toThrow(CodecError);
  const result = pb.FetchResult.fromPartial({
    taskId: "x",
    kind: pb.ResultKind.RESULT_KIND_RESPONSE,
    taskKind: pb.TaskKind.TASK_KIND_PAGE,
    bytes: 2n ** 63n,
  });
  expect(() => decodeFetchResult(pb.FetchResult.encode(result).finish())).toThrow(/bytes/);
});

test("codec - values the wire cannot carry are refused when encoding", () => {
  expect(() => encodeFetchTask({ ...minimalTask, partition: -1 }, "eu")).toThrow(CodecError);
  expect(() => encodeFetchTask({ ...minimalTask, partition: 1.5 }, "eu")).toThrow(CodecError);
  expect(() => encodeFetchTask({ ...minimalTask, depth: 2 ** 32 }, "eu")).toThrow(CodecError);
  expect(() => encodeFetchTask({ ...minimalTask, issuedAt: Number.NaN }, "eu")).toThrow(CodecError);
  expect(() => encodeFetchTask({ ...minimalTask, issuedAt: 2 ** 60 }, "eu")).toThrow(CodecError);
  expect(() => encodeFetchResult({ ...pageResult, bytes: -1 })).toThrow(CodecError);
  expect(() => encodeFetchTask({ ...minimalTask, kind: "video" as never }, "eu")).toThrow(CodecError);
});

test("codec - garbage and unknown enum values decode to a CodecError, never to a half-filled task", () => {
  expect(() => decodeFetchTask(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]))).toThrow(CodecError);
  const noKind = pb.FetchTask.encode(pb.FetchTask.fromPartial({ taskId: "x" })).finish();
  expect(() => decodeFetchTask(noKind)).toThrow(/task kind/);
  const noId = pb.FetchTask.encode(pb.FetchTask.fromPartial({ kind: pb.TaskKind.TASK_KIND_PAGE })).finish();
  expect(() => decodeFetchTask(noId)).toThrow(/task id/);
});

test("codec - a page result survives the round trip, including changed=false and truncated", () => {
  expect(decodeFetchResult(encodeFetchResult(pageResult))).toStrictEqual(pageResult);
  const changed = { ...pageResult, changed: true, truncated: undefined, duplicateOf: "https://example.com/c" };
  delete changed.truncated;
  expect(decodeFetchResult(encodeFetchResult(changed))).toStrictEqual(changed);
});

test("codec - a result's times keep their microseconds, and the time it was sent travels with them", () => {
  const precise: FetchResult = {
    ...pageResult,
    startedAt: 1_732_900_000_123.456,
    endedAt: 1_732_900_000_223.457,
    sentAt: 1_732_900_000_230.001,
  };
  const back = decodeFetchResult(encodeFetchResult(precise));
  expect(back.startedAt).toBeCloseTo(precise.startedAt, 3);
  expect(back.endedAt).toBeCloseTo(precise.endedAt, 3);
  expect(back.sentAt).toBeCloseTo(precise.sentAt!, 3);
  // The duration, which politeness multiplies by ten, survives to the microsecond.
  expect(back.endedAt - back.startedAt).toBeCloseTo(100.001, 3);
  // An older fetch node sends whole milliseconds only: those are used, and no send time.
  const old = pb.FetchResult.decode(encodeFetchResult(precise));
  old.startedAtUs = 0n;
  old.endedAtUs = 0n;
  old.sentAtUs = 0n;
  const fromOld = decodeFetchResult(pb.FetchResult.encode(old).finish());
  expect([fromOld.startedAt, fromOld.endedAt, fromOld.sentAt]).toEqual([1_732_900_000_123, 1_732_900_000_223, undefined]);
});

test("codec - error and robots results keep exactly the fields the worker sets", () => {
  const networkError: FetchResult = {
    taskId: "t-3",
    kind: "network-error",
    taskKind: "page",
    url: "https://down.example/",
    host: "down.example",
    partition: 3,
    status: 0,
    error: "timeout",
    startedAt: 1,
    endedAt: 20_001,
    linksFound: 0,
    bytes: 0,
  };
  const skipped: FetchResult = { ...networkError, kind: "skipped", error: "blocked-address" };
  const refused: FetchResult = { ...networkError, kind: "skipped", error: "blocked-address", refusal: "loopback" };
  const robotsParse: FetchResult = {
    ...networkError,
    kind: "response",
    taskKind: "robots",
    status: 200,
    error: undefined,
    robots: { verdict: "parse", text: "" },
    retryAfter: "120",
  };
  delete robotsParse.error;
  const robotsDisallow: FetchResult = { ...robotsParse, status: 503, robots: { verdict: "disallow-all" } };
  const redirect: FetchResult = { ...robotsParse, taskKind: "page", status: 301, redirectTo: "https://x.example/", robots: undefined };
  delete redirect.robots;
  for (const r of [networkError, skipped, refused, robotsParse, robotsDisallow, redirect]) {
    expect(decodeFetchResult(encodeFetchResult(r))).toStrictEqual(r);
  }
});

test("codec - discovered links survive the round trip with their partition, in order", () => {
  const urls: DiscoveredUrl[] = [
    { url: "https://a.example/", host: "a.example", depth: 0, redirectHops: 0, isSeed: true },
    { url: "https://a.example/x", host: "a.example", depth: 3, sourceUrl: "https://a.example/", redirectHops: 1 },
    { url: "https://a.example/ü?q=%20", host: "a.example", depth: 4, sourceUrl: "https://a.example/x", redirectHops: 0 },
  ];
  expect(decodeDiscoveredLinks(encodeDiscoveredLinks(42, urls))).toStrictEqual({ partition: 42, urls });
  expect(decodeDiscoveredLinks(encodeDiscoveredLinks(0, []))).toStrictEqual({ partition: 0, urls: [] });
  expect(() => encodeDiscoveredLinks(1, [{ ...urls[0]!, depth: -1 }])).toThrow(CodecError);
});

test("codec - a response's note travels in its own field, apart from errors", () => {
  for (const note of ["noindex", "bad-location: unparseable"] as const) {
    const withNote: FetchResult = { ...pageResult, note };
    const wire = fetchResultToProto(withNote);
    expect([wire.note, wire.error]).toEqual([note, ""]);
    expect(decodeFetchResult(encodeFetchResult(withNote))).toStrictEqual(withNote);
  }
});

test("codec - a response whose note an older fetch node wrote into the error field reads as its note", () => {
  const old = pb.FetchResult.encode({ ...fetchResultToProto(pageResult), error: "noindex" }).finish();
  expect(decodeFetchResult(old)).toStrictEqual({ ...pageResult, note: "noindex" });
});

test("codec - a failed result must name a known error kind, a skipped one a skip reason, a note a known note", () => {
  const failed = (kind: pb.ResultKind, error: string) =>
    pb.FetchResult.encode(pb.FetchResult.fromPartial({ taskId: "x", kind, taskKind: pb.TaskKind.TASK_KIND_PAGE, error })).finish();
  expect(decodeFetchResult(failed(pb.ResultKind.RESULT_KIND_NETWORK_ERROR, "tls"))).toMatchObject({ kind: "network-error", error: "tls" });
  expect(() => decodeFetchResult(failed(pb.ResultKind.RESULT_KIND_NETWORK_ERROR, ""))).toThrow(/network-error result with no error kind/);
  expect(() => decodeFetchResult(failed(pb.ResultKind.RESULT_KIND_NETWORK_ERROR, "gremlins"))).toThrow(/unknown error kind "gremlins"/);
  expect(() => decodeFetchResult(failed(pb.ResultKind.RESULT_KIND_NETWORK_ERROR, "blocked-address"))).toThrow(/is a skip reason/);
  expect(() => decodeFetchResult(failed(pb.ResultKind.RESULT_KIND_SKIPPED, "timeout"))).toThrow(/not a skip reason/);
  const oddRefusal = pb.FetchResult.encode(
    pb.FetchResult.fromPartial({
      taskId: "x",
      kind: pb.ResultKind.RESULT_KIND_SKIPPED,
      taskKind: pb.TaskKind.TASK_KIND_PAGE,
      error: "blocked-address",
      refusal: "x".repeat(500),
    }),
  ).finish();
  expect(() => decodeFetchResult(oddRefusal)).toThrow(/malformed refusal/);
  const oddNote = pb.FetchResult.encode({ ...fetchResultToProto(pageResult), note: "looks fine" }).finish();
  expect(() => decodeFetchResult(oddNote)).toThrow(CodecError);
});

test("codec - a sitemap task, its result's summary and sitemap references round-trip; bad grants, formats and priorities are refused", () => {
  const task: FetchTask = {
    ...minimalTask,
    kind: "sitemap",
    url: "http://maps.test/s.xml.gz",
    sitemap: { grants: ["http://a.test/"], fromIndex: true },
  };
  expect(decodeFetchTask(encodeFetchTask(task, "r1"))).toEqual(task);
  const plain: FetchTask = { ...task, sitemap: { grants: [] } };
  expect(decodeFetchTask(encodeFetchTask(plain, "r1"))).toEqual(plain);

  const result: FetchResult = {
    ...pageResult,
    taskKind: "sitemap",
    fingerprint: undefined,
    simhash: undefined,
    changed: undefined,
    nearDuplicateOf: undefined,
    sitemap: { format: "index", entries: 3, outOfLocation: 1, invalid: 2, limit: "entries", nestedIndex: true },
  };
  for (const key of Object.keys(result) as (keyof FetchResult)[]) if (result[key] === undefined) delete result[key];
  expect(decodeFetchResult(encodeFetchResult(result))).toEqual(result);

  const urls: DiscoveredUrl[] = [
    {
      url: "http://a.test/p",
      host: "a.test",
      depth: 1,
      sourceUrl: "http://a.test/s.xml",
      redirectHops: 0,
      lastmod: 1_700_000_000_000,
      sitemapPriority: 0,
    },
    { url: "http://a.test/q", host: "a.test", depth: 1, redirectHops: 0, sitemapPriority: 1 },
    { url: "http://a.test/s2.xml", host: "a.test", depth: 0, redirectHops: 1, sitemap: { grants: ["http://b.test:8080/"] } },
    { url: "http://a.test/feed.xml", host: "a.test", depth: 0, redirectHops: 0, sitemap: { grants: ["http://a.test/"], feed: true } },
  ];
  expect(decodeDiscoveredLinks(encodeDiscoveredLinks(3, urls))).toEqual({ partition: 3, urls });

  const badGrant = pb.FetchTask.encode({
    ...pb.FetchTask.fromPartial({ taskId: "x", kind: pb.TaskKind.TASK_KIND_SITEMAP }),
    sitemap: { grants: ["javascript:alert(1)"], fromIndex: false, feed: false },
  }).finish();
  expect(() => decodeFetchTask(badGrant)).toThrow(CodecError);
  const badFormat = pb.FetchResult.encode({
    ...fetchResultToProto(result),
    sitemap: { ...fetchResultToProto(result).sitemap!, format: "rdf" },
  }).finish();
  expect(() => decodeFetchResult(badFormat)).toThrow(CodecError);
  const badPriority = pb.DiscoveredLinks.encode({
    partition: 0,
    urls: [pb.DiscoveredUrl.fromPartial({ url: "http://a.test/", host: "a.test", sitemapPriority: 7, hasSitemapPriority: true })],
  }).finish();
  expect(() => decodeDiscoveredLinks(badPriority)).toThrow(CodecError);
});

test("codec - a media task, a page task asking for media, and a page's media count survive the round trip", () => {
  const media: FetchTask = { ...minimalTask, kind: "media", url: "https://example.org/a.jpg" };
  expect(decodeFetchTask(encodeFetchTask(media, "eu"))).toStrictEqual(media);
  const page: FetchTask = { ...fullTask, fetchMedia: true };
  expect(decodeFetchTask(encodeFetchTask(page, "eu"))).toStrictEqual(page);
  const result: FetchResult = { ...pageResult, mediaFound: 12 };
  expect(decodeFetchResult(encodeFetchResult(result))).toStrictEqual(result);
  const mediaResult: FetchResult = { ...pageResult, taskKind: "media" };
  expect(decodeFetchResult(encodeFetchResult(mediaResult)).taskKind).toBe("media");
});

test("codec - a result's time the fetch node was not running survives the round trip, to the microsecond; none is absent", () => {
  const paused: FetchResult = { ...pageResult, pausedMs: 30_012.345 };
  expect(decodeFetchResult(encodeFetchResult(paused))).toStrictEqual(paused);
  expect(decodeFetchResult(encodeFetchResult(pageResult)).pausedMs).toBeUndefined();
});

test("codec - a discovered media URL and a link found on a near duplicate keep their marks; an unknown kind is refused", () => {
  const urls: DiscoveredUrl[] = [
    { url: "https://example.com/a.jpg", host: "example.com", depth: 3, sourceUrl: "https://example.com/", redirectHops: 0, kind: "media" },
    { url: "https://example.com/n", host: "example.com", depth: 2, redirectHops: 0, foundOnNearDuplicate: true },
  ];
  expect(decodeDiscoveredLinks(encodeDiscoveredLinks(9, urls)).urls).toStrictEqual(urls);
  const odd = pb.DiscoveredLinks.encode({
    partition: 1,
    urls: [pb.DiscoveredUrl.fromPartial({ url: "https://x/", kind: 99 as pb.UrlKind })],
  }).finish();
  expect(() => decodeDiscoveredLinks(odd)).toThrow(CodecError);
});

test("codec - where a result's WARC and WET records lie survives the round trip; none is absent; an empty location is refused", () => {
  const stored: FetchResult = {
    ...pageResult,
    warc: { file: "crawl-20260101000000-00001.warc.gz", offset: 5_000_000_123, length: 4_211 },
    text: { file: "s3://bucket/warc/crawl-20260101000000-00001.warc.wet.gz", offset: 0, length: 812 },
    contentType: "text/html; charset=utf-8",
  };
  expect(decodeFetchResult(encodeFetchResult(stored))).toStrictEqual(stored);
  const decoded = decodeFetchResult(encodeFetchResult(pageResult));
  expect(decoded.warc).toBeUndefined();
  expect(decoded.text).toBeUndefined();
  expect(decoded.contentType).toBeUndefined();
  const empty = pb.FetchResult.encode({ ...fetchResultToProto(pageResult), warc: { file: "", offset: 0n, length: 0n } }).finish();
  expect(() => decodeFetchResult(empty)).toThrow(CodecError);
  expect(() => encodeFetchResult({ ...pageResult, warc: { file: "x", offset: -1, length: 3 } })).toThrow(CodecError);
});

test("codec - a page task's render ask and robots.txt, a result's render report and a link found by rendering survive the round trip", () => {
  const page: FetchTask = { ...fullTask, render: "auto", robotsText: "User-agent: *\nDisallow: /private/\n" };
  expect(decodeFetchTask(encodeFetchTask(page, "eu"))).toStrictEqual(page);
  const always: FetchTask = { ...fullTask, render: "always" };
  expect(decodeFetchTask(encodeFetchTask(always, "eu"))).toStrictEqual(always);
  // robots.txt travels only with a render ask.
  expect(decodeFetchTask(encodeFetchTask({ ...fullTask, robotsText: "x" }, "eu")).robotsText).toBeUndefined();
  const rendered: FetchResult = {
    ...pageResult,
    render: { outcome: "failed", reason: "crashed", extraLinks: 0, hostRequests: 2, browserRestarts: 1, hostThrottled: true },
  };
  expect(decodeFetchResult(encodeFetchResult(rendered))).toStrictEqual(rendered);
  const asReceived: FetchResult = {
    ...pageResult,
    render: { outcome: "as-received", reason: "as-received", extraLinks: 0, hostRequests: 0 },
  };
  expect(decodeFetchResult(encodeFetchResult(asReceived))).toStrictEqual(asReceived);
  const urls: DiscoveredUrl[] = [
    {
      url: "https://example.com/app/1",
      host: "example.com",
      depth: 1,
      sourceUrl: "https://example.com/",
      redirectHops: 0,
      foundByRender: true,
    },
    { url: "https://example.com/plain", host: "example.com", depth: 1, sourceUrl: "https://example.com/", redirectHops: 0 },
  ];
  expect(decodeDiscoveredLinks(encodeDiscoveredLinks(9, urls)).urls).toStrictEqual(urls);
  // The hand-written codec and the generated one agree on the new field.
  const generated = pb.DiscoveredLinks.decode(encodeDiscoveredLinks(9, urls));
  expect(generated.urls.map((u) => u.foundByRender)).toEqual([true, false]);
});
