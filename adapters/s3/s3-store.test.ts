/**
 * The S3 adapter against a real S3-protocol server on loopback (s3rver, tests/support/s3.ts), with a
 * fault-injecting proxy in front of it where a test needs the store to misbehave. What the store holds is
 * read back through the server's own listing and GET, not taken from the client's answers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readObject, startFaultProxy, startS3, TEST_CREDENTIALS, TEST_REGION, type S3Server } from "../../tests/support/s3.ts";
import { MIB, parseS3Location, S3Error, S3ObjectStore, uploadFile, S3Client } from "./index.ts";

let s3: S3Server;
let dir: string;

beforeAll(async () => {
  s3 = await startS3();
  dir = mkdtempSync(join(tmpdir(), "s3-adapter-"));
});
afterAll(async () => {
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");
function localFile(name: string, bytes: number): { path: string; data: Uint8Array } {
  const data = new Uint8Array(randomBytes(bytes));
  const path = join(dir, name);
  writeFileSync(path, data);
  return { path, data };
}
const client = (endpoint: string, extra: { requestTimeoutMs?: number } = {}) =>
  new S3Client({ bucket: s3.bucket, region: TEST_REGION, credentials: TEST_CREDENTIALS, endpoint, ...extra });

test("s3 store - a small file becomes one object under prefix + name, byte for byte, and stat reports it", async () => {
  const { path, data } = localFile("small.warc.gz", 300_000);
  const store = new S3ObjectStore({
    location: parseS3Location(`s3://${s3.bucket}/crawls/eu`),
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    endpoint: s3.endpoint,
  });
  expect(store.location).toBe(`s3://${s3.bucket}/crawls/eu/`);
  const stored = await store.upload(path, "small.warc.gz");
  expect(stored.size).toBe(data.length);
  expect(await readObject(s3.client, "crawls/eu/small.warc.gz")).toEqual(data);
  expect((await s3.client.listObjects("crawls/")).map((o) => o.key)).toEqual(["crawls/eu/small.warc.gz"]);
  expect(await store.stat("small.warc.gz")).toEqual({ size: data.length, etag: md5(data) });
  expect(await store.stat("absent.warc.gz")).toBeUndefined();
});

test("s3 store - a file above the threshold goes up in parts through the proxy, and reads back whole", async () => {
  const proxy = await startFaultProxy(s3.endpoint);
  try {
    const { path, data } = localFile("big.warc.gz", 13 * MIB + 12_345);
    const done = await uploadFile(client(proxy.endpoint), path, "multi/big.warc.gz", {
      multipartThresholdBytes: 6 * MIB,
      partSizeBytes: 5 * MIB,
      partConcurrency: 2,
    });
    expect(done).toMatchObject({ size: data.length, parts: 3 });
    const partPuts = proxy.requests.filter((r) => /^PUT \/crawl-test\/multi\/big\.warc\.gz\?.*partNumber=/.test(r.line));
    expect(partPuts.map((r) => /partNumber=(\d+)/.exec(r.line)![1]).sort()).toEqual(["1", "2", "3"]);
    expect(proxy.requests.some((r) => /^POST .*big\.warc\.gz\?uploads/.test(r.line))).toBe(true);
    expect(md5((await readObject(s3.client, "multi/big.warc.gz"))!)).toBe(md5(data));
  } finally {
    await proxy.close();
  }
});

test("s3 store - 500s, a dropped connection and a request that never answers are retried in place", async () => {
  const proxy = await startFaultProxy(s3.endpoint);
  try {
    const { path, data } = localFile("flaky.warc.gz", 11 * MIB);
    proxy.inject("error500", 1, /partNumber=1&/);
    proxy.inject("reset", 1, /partNumber=2&/);
    proxy.inject("hang", 1, /^HEAD /);
    const retried: string[] = [];
    await uploadFile(client(proxy.endpoint, { requestTimeoutMs: 1_000 }), path, "flaky/flaky.warc.gz", {
      multipartThresholdBytes: 6 * MIB,
      partSizeBytes: 6 * MIB,
      retry: { attempts: 3, firstDelayMs: 10 },
      onRetry: (e) => retried.push(e.code),
    });
    // A connection cut on a reused keep-alive socket may be re-sent by the runtime's fetch itself (Bun does)
    // before our retry sees it; either way the part is sent again and the object is whole.
    expect(retried).toEqual(expect.arrayContaining(["InternalError", "Timeout"]));
    expect(
      proxy.requests
        .filter((r) => r.action !== "forward")
        .map((r) => r.action)
        .sort(),
    ).toEqual(["error500", "hang", "reset"]);
    const partTwo = proxy.requests.filter((r) => /partNumber=2&/.test(r.line)).map((r) => r.action);
    expect(partTwo).toEqual(["reset", "forward"]);
    expect(md5((await readObject(s3.client, "flaky/flaky.warc.gz"))!)).toBe(md5(data));
  } finally {
    await proxy.close();
  }
});

test("s3 store - when retries run out the multipart upload is aborted and the error says to try later", async () => {
  const proxy = await startFaultProxy(s3.endpoint);
  try {
    const { path } = localFile("doomed.warc.gz", 11 * MIB);
    proxy.inject("error500", 100, /partNumber=2&/);
    const failure = await uploadFile(client(proxy.endpoint), path, "doomed/doomed.warc.gz", {
      multipartThresholdBytes: 6 * MIB,
      partSizeBytes: 6 * MIB,
      retry: { attempts: 2, firstDelayMs: 10 },
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(S3Error);
    expect(failure).toMatchObject({ status: 500, code: "InternalError", retryable: true });
    expect(proxy.requests.some((r) => /^DELETE .*doomed\.warc\.gz\?uploadId=/.test(r.line))).toBe(true);
    expect(await s3.client.headObject("doomed/doomed.warc.gz")).toBeUndefined();
  } finally {
    await proxy.close();
  }
});

test("s3 store - a missing bucket is an error that retrying does not fix; an unreachable store one that it may", async () => {
  const { path } = localFile("nobucket.warc.gz", 1000);
  const wrongBucket = new S3ObjectStore({
    location: parseS3Location("s3://no-such-bucket/x"),
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    endpoint: s3.endpoint,
  });
  expect(await wrongBucket.upload(path, "nobucket.warc.gz").catch((e: unknown) => e)).toMatchObject({
    status: 404,
    code: "NoSuchBucket",
    retryable: false,
  });
  const proxy = await startFaultProxy(s3.endpoint);
  const closedEndpoint = proxy.endpoint;
  await proxy.close();
  const down = new S3ObjectStore({
    location: parseS3Location(`s3://${s3.bucket}/x`),
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    endpoint: closedEndpoint,
    upload: { retry: { attempts: 1, firstDelayMs: 0 } },
  });
  expect(await down.upload(path, "nobucket.warc.gz").catch((e: unknown) => e)).toMatchObject({
    status: 0,
    code: "NetworkError",
    retryable: true,
  });
});

test("s3 store - the same name uploaded twice is one object holding the second content", async () => {
  const store = new S3ObjectStore({
    location: parseS3Location(`s3://${s3.bucket}/again`),
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    endpoint: s3.endpoint,
  });
  const first = localFile("again-1", 2000);
  const second = localFile("again-2", 3000);
  await store.upload(first.path, "same.warc.gz");
  await store.upload(second.path, "same.warc.gz");
  expect((await s3.client.listObjects("again/")).map((o) => [o.key, o.size])).toEqual([["again/same.warc.gz", 3000]]);
  expect(await readObject(s3.client, "again/same.warc.gz")).toEqual(second.data);
});

test("s3 location - s3://bucket/prefix is checked and normalized", () => {
  expect(parseS3Location("s3://my-bucket")).toEqual({ bucket: "my-bucket", prefix: "" });
  expect(parseS3Location("s3://my-bucket/a//b/")).toEqual({ bucket: "my-bucket", prefix: "a/b/" });
  expect(() => parseS3Location("http://my-bucket/a")).toThrow(/s3:\/\/bucket\/prefix/);
  expect(() => parseS3Location("s3://My_Bucket/a")).toThrow(/not a valid bucket name/);
  expect(() => parseS3Location("s3://bucket/a/../b")).toThrow(/"\.\."/);
});
