/**
 * The upload loop against a real S3-protocol server on loopback (s3rver), through a fault-injecting proxy
 * where the store must misbehave. What reached the store is read back from the store itself; what the
 * uploader asked for is read from the proxy's request log.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3ObjectStore, parseS3Location } from "../../../adapters/s3/index.ts";
import { silentLog } from "../../../core/ports/index.ts";
import { Counters } from "../../../core/stats/index.ts";
import {
  readObject,
  startFaultProxy,
  startS3,
  TEST_CREDENTIALS,
  TEST_REGION,
  type FaultProxy,
  type S3Server,
} from "../../../tests/support/s3.ts";
import { WarcSpool, WarcUploader } from "./index.ts";

let dir: string;
let s3: S3Server;
let proxy: FaultProxy | undefined;
let uploader: WarcUploader | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-uploader-"));
  await mkdir(join(dir, "finished"));
  s3 = await startS3();
});
afterEach(async () => {
  await uploader?.close(0);
  uploader = undefined;
  await proxy?.close();
  proxy = undefined;
  await s3.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Puts a finished file in the spool, as the writer does. */
async function finished(name: string, bytes: number): Promise<Uint8Array> {
  const data = new Uint8Array(randomBytes(bytes));
  await writeFile(join(dir, "finished", name), data);
  return data;
}

function startUploader(endpoint: string, counters = new Counters()): { uploader: WarcUploader; counters: Counters } {
  const store = new S3ObjectStore({
    location: parseS3Location(`s3://${s3.bucket}/crawl/node-1`),
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    endpoint,
    requestTimeoutMs: 1_000,
    upload: { retry: { attempts: 2, firstDelayMs: 10 }, multipartThresholdBytes: 6 * 1024 * 1024, partSizeBytes: 5 * 1024 * 1024 },
  });
  uploader = new WarcUploader({
    spool: new WarcSpool(dir),
    store,
    counters,
    log: silentLog,
    pollMs: 50,
    firstRetryMs: 50,
    maxRetryMs: 400,
  });
  uploader.start();
  return { uploader, counters };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

const spoolNames = async () => (await readdir(join(dir, "finished"))).sort();
const bucketKeys = async () => (await s3.client.listObjects("")).map((o) => o.key).sort();

test("uploader - finished files reach prefix/name byte for byte, big ones in parts, and only then leave the disk", async () => {
  const small = await finished("n1-00001.warc.gz", 40_000);
  const index = await finished("n1-00001.cdxj", 900);
  const big = await finished("n1-00002.warc.gz", 11 * 1024 * 1024);
  proxy = await startFaultProxy(s3.endpoint);
  const { counters } = startUploader(proxy.endpoint);
  await waitFor("an empty spool", async () => (await spoolNames()).length === 0);
  expect(await bucketKeys()).toEqual(["crawl/node-1/n1-00001.cdxj", "crawl/node-1/n1-00001.warc.gz", "crawl/node-1/n1-00002.warc.gz"]);
  expect(await readObject(s3.client, "crawl/node-1/n1-00001.warc.gz")).toEqual(small);
  expect(await readObject(s3.client, "crawl/node-1/n1-00001.cdxj")).toEqual(index);
  expect(await readObject(s3.client, "crawl/node-1/n1-00002.warc.gz")).toEqual(big);
  expect(proxy.requests.filter((r) => /n1-00002\.warc\.gz\?partNumber=/.test(r.line))).toHaveLength(3);
  // A WARC goes up before its index.
  const puts = proxy.requests.filter((r) => r.line.startsWith("PUT ") && !r.line.includes("partNumber")).map((r) => r.line.split(" ")[1]);
  expect(puts.indexOf("/crawl-test/crawl/node-1/n1-00001.warc.gz")).toBeLessThan(puts.indexOf("/crawl-test/crawl/node-1/n1-00001.cdxj"));
  expect(counters.get("warc.upload.files")).toBe(3);
  expect(uploader!.gauges()["warc.upload.pending.bytes"]).toBe(0);
});

test("uploader - the local copy stays until the store confirms: a stalled confirmation keeps it, then it goes", async () => {
  await finished("n1-00001.warc.gz", 5_000);
  proxy = await startFaultProxy(s3.endpoint);
  // The PUT goes through; the next HEADs (the confirmation, then the checks of the next rounds) stall,
  // and the client gives up on each after 1 s.
  proxy.inject("hang", 4, (line, before) => line.startsWith("HEAD ") && before.some((r) => r.line.startsWith("PUT ")));
  startUploader(proxy.endpoint);
  await waitFor("the object in the store", async () => (await bucketKeys()).includes("crawl/node-1/n1-00001.warc.gz"));
  await waitFor("a stalled confirmation", async () => proxy!.requests.some((r) => r.action === "hang"));
  // The object is in the store, its confirmation has not come: the file is still here.
  expect(await spoolNames()).toEqual(["n1-00001.warc.gz"]);
  await waitFor("an empty spool", async () => (await spoolNames()).length === 0);
  const heads = proxy.requests.filter((r) => r.line.startsWith("HEAD "));
  expect(heads.at(-1)!.action).toBe("forward");
  expect(heads.filter((r) => r.action === "hang")).toHaveLength(4);
});

test("uploader - a store down for a while: files wait on disk, counted as pending, and all go when it is back", async () => {
  const data = new Map<string, Uint8Array>();
  for (const n of ["n1-00001.warc.gz", "n1-00001.cdxj"]) data.set(n, await finished(n, 20_000));
  await s3.kill();
  const { counters } = startUploader(s3.endpoint);
  await waitFor("failed rounds", async () => counters.get("warc.upload.failures") >= 2);
  for (const n of ["n1-00002.warc.gz", "n1-00002.cdxj"]) data.set(n, await finished(n, 30_000));
  await waitFor("all four files counted as pending", async () => uploader!.gauges()["warc.upload.pending.files"] === 4);
  expect(uploader!.gauges()["warc.upload.pending.bytes"]).toBe(100_000);
  expect(await spoolNames()).toEqual([...data.keys()].sort());
  await s3.restart();
  await waitFor("an empty spool", async () => (await spoolNames()).length === 0);
  expect(await bucketKeys()).toEqual([...data.keys()].map((n) => `crawl/node-1/${n}`).sort());
  for (const [n, bytes] of data) expect(await readObject(s3.client, `crawl/node-1/${n}`)).toEqual(bytes);
  expect(uploader!.gauges()).toMatchObject({ "warc.upload.pending.bytes": 0, "warc.upload.failing.rounds": 0 });
});

test("uploader - another file already under the name is never written over: the local file is kept", async () => {
  const theirs = new Uint8Array(randomBytes(1234));
  await s3.client.putObject("crawl/node-1/n1-00001.warc.gz", theirs);
  await finished("n1-00001.warc.gz", 5_000);
  await finished("n1-00002.warc.gz", 5_000);
  const { counters } = startUploader(s3.endpoint);
  await waitFor("a conflict counted", async () => counters.get("warc.upload.conflicts") >= 1);
  expect(await readObject(s3.client, "crawl/node-1/n1-00001.warc.gz")).toEqual(theirs);
  expect(await spoolNames()).toContain("n1-00001.warc.gz");
  // The conflict holds up the files behind it; the operator is told (error log, counter, pending gauge).
  expect(uploader!.gauges()["warc.upload.pending.files"]).toBe(2);
});

test("uploader - a store that refuses to say what it holds (403 on HEAD, no list permission) still gets the file", async () => {
  const data = await finished("n1-00001.warc.gz", 3_000);
  proxy = await startFaultProxy(s3.endpoint);
  proxy.inject("denied403", 1, (line, before) => line.startsWith("HEAD ") && !before.some((r) => r.line.startsWith("PUT ")));
  const { counters } = startUploader(proxy.endpoint);
  await waitFor("an empty spool", async () => (await spoolNames()).length === 0);
  expect(proxy.requests.map((r) => `${r.line.split(" ")[0]} ${r.action}`)).toEqual(["HEAD denied403", "PUT forward", "HEAD forward"]);
  expect(await readObject(s3.client, "crawl/node-1/n1-00001.warc.gz")).toEqual(data);
  expect(counters.get("warc.upload.failures")).toBe(0);
});

test("uploader - close drains what is waiting; with the store down it stops at the deadline and keeps the files", async () => {
  await finished("n1-00001.warc.gz", 8_000);
  const live = startUploader(s3.endpoint).uploader;
  await finished("n1-00002.warc.gz", 8_000);
  expect(await live.close(20_000)).toEqual({ filesLeft: 0, bytesLeft: 0 });
  expect(await bucketKeys()).toEqual(["crawl/node-1/n1-00001.warc.gz", "crawl/node-1/n1-00002.warc.gz"]);

  await finished("n1-00003.warc.gz", 8_000);
  await s3.kill();
  const down = startUploader(s3.endpoint).uploader;
  expect(await down.close(500)).toEqual({ filesLeft: 1, bytesLeft: 8_000 });
  expect(await spoolNames()).toEqual(["n1-00003.warc.gz"]);
});
