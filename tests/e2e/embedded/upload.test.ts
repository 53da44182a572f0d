/**
 * `crawl --warc-upload`: the embedded crawler ships its WARC files, their CDXJ indexes and WET files to a real
 * S3-protocol server on loopback (tests/support/s3.ts), through a proxy that can stall the store. What
 * reached the store is read back from the bucket; what was fetched comes from the test web's request log.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readBucketWarcs, repeatedRecordIds } from "../../support/bucket-warcs.ts";
import { readObject, startFaultProxy, startS3, TEST_CREDENTIALS, TEST_REGION, type FaultProxy, type S3Server } from "../../support/s3.ts";
import { captureProblem, checkWetFiles } from "../../support/stored-captures.ts";
import {
  crawlArgs,
  describeOutput,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  urlOf,
  useHarness,
  waitFor,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();
const ENV = {
  AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
  AWS_REGION: TEST_REGION,
};
const PREFIX = "crawls/run-1/";

let s3: S3Server | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await s3?.stop();
  proxy = undefined;
  s3 = undefined;
});

/** WARC files and indexes still on local disk, open or finished. */
function localFiles(out: string): string[] {
  const dir = join(out, "warc");
  const list = (d: string) =>
    existsSync(d) ? readdirSync(d).filter((n) => n.endsWith(".warc.gz") || (n.endsWith(".cdxj") && n !== "index.cdxj")) : [];
  return [...list(dir), ...list(join(dir, "finished"))].sort();
}

/** Every response record's URL in the bucket. */
async function urlsInBucket(): Promise<string[]> {
  const stored = await readBucketWarcs(s3!.client, PREFIX);
  expect(repeatedRecordIds(stored)).toEqual([]);
  const warcs = stored.names.filter((n) => n.endsWith(".warc.gz"));
  expect(stored.names.filter((n) => n.endsWith(".cdxj"))).toEqual(warcs.map((n) => n.replace(".warc.gz", ".cdxj")));
  for (const [name, records] of stored.records) expect(records[0]?.warcHeaders["WARC-Filename"]).toBe(name);
  return [...stored.records.values()]
    .flat()
    .filter((r) => r.type === "response")
    .map((r) => r.url!);
}

describe("crawl: WARC upload", () => {
  test("every page fetched reaches the bucket in WARC files with their indexes, and no copy stays on disk", async () => {
    s3 = await startS3();
    const web = await h.web({ hosts: 2, pagesPerHost: 6, linksPerPage: 5, pageBytes: 3000 });
    const seeds = [web.url("site0.test"), web.url("site1.test")];
    const expected = web.expectedPages(seeds);
    const out = h.tempDir();
    const argv = crawlArgs(web, seeds, out, [
      "--max-duration",
      "60s",
      "--warc-upload",
      `s3://${s3.bucket}/${PREFIX}`,
      "--s3-endpoint",
      s3.endpoint,
      "--warc-roll-size",
      "8KiB",
    ]);
    const run = h.crawl(argv, { out, env: ENV });
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: "every expected page",
    });
    const { exit } = await interrupt(run, 30_000);
    expect({ code: exit.code, output: exit.code === 0 ? "" : describeOutput(run) }).toEqual({ code: 0, output: "" });

    const urls = await urlsInBucket();
    expect(urls.sort()).toEqual(web.requests.map(urlOf).sort());
    expect(new Set(urls).size).toBe(urls.length);
    const names = (await s3.client.listObjects(PREFIX)).map((o) => o.key);
    expect(names.filter((n) => n.endsWith(".warc.gz")).length).toBeGreaterThan(2);
    expect(localFiles(out)).toEqual([]);
  }, 90_000);

  test("killed with -9 while uploads hang, the same command uploads the leftovers once, under their names, and loses nothing", async () => {
    s3 = await startS3();
    proxy = await startFaultProxy(s3.endpoint);
    proxy.inject("hang", 10_000, /^PUT /);
    const web = await h.web({ hosts: 2, pagesPerHost: 8, linksPerPage: 5, pageBytes: 3000 });
    const seeds = [web.url("site0.test"), web.url("site1.test")];
    const expected = web.expectedPages(seeds);
    const out = h.tempDir();
    const argv = crawlArgs(web, seeds, out, [
      "--max-duration",
      "60s",
      "--min-gap",
      "200ms",
      "--warc-upload",
      `s3://${s3.bucket}/${PREFIX}`,
      "--s3-endpoint",
      proxy.endpoint,
      "--warc-roll-size",
      "8KiB",
    ]);
    const first = h.crawl(argv, { out, env: ENV });
    await waitFor(() => proxy!.requests.some((r) => r.action === "hang") && pageRequests(web).length >= expected.pages.size / 2, {
      timeoutMs: 30_000,
      what: "half the pages fetched while an upload hangs",
      run: first,
    });
    first.signal("SIGKILL");
    expect((await first.waitExit(5_000)).signal).toBe("SIGKILL");
    const leftovers = localFiles(out);
    expect(leftovers.filter((n) => n.endsWith(".warc.gz")).length).toBeGreaterThan(0);
    expect(await s3.client.listObjects(PREFIX)).toEqual([]);

    const before = proxy.requests.length;
    proxy.clearFaults();
    const second = h.crawl(argv, { out, env: ENV });
    await waitUntilIdle(second, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: "the rest of the pages",
    });
    const { exit } = await interrupt(second, 30_000);
    expect({ code: exit.code, output: exit.code === 0 ? "" : describeOutput(second) }).toEqual({ code: 0, output: "" });

    // Every response the web served (both runs) is in the bucket, no record twice.
    const urls = await urlsInBucket();
    expect(missing(web.requests.map(urlOf), urls)).toEqual([]);
    // Each file the killed run left behind went up once, under its own name.
    const puts = proxy.requests
      .slice(before)
      .filter((r) => r.line.startsWith("PUT ") && r.action === "forward")
      .map((r) => r.line.split(" ")[1]!.split("?")[0]!);
    for (const name of leftovers)
      expect({ name, puts: puts.filter((p) => p === `/${s3!.bucket}/${PREFIX}${name}`).length }).toEqual({ name, puts: 1 });
    expect(localFiles(out)).toEqual([]);
  }, 120_000);

  test("captures name their files' object URLs, which hold each page's response record once uploaded; each WET file goes up beside its WARC file", async () => {
    s3 = await startS3();
    const web = await h.web({ hosts: 1, pagesPerHost: 8, linksPerPage: 5, pageBytes: 3000, special: true });
    const seeds = [web.url("site0.test")];
    const expected = web.expectedPages(seeds);
    const out = h.tempDir();
    // slow.test (1.5 s an answer, so a 15 s gap) keeps the crawl, and its HTTP API, running while site0.test is looked up.
    const argv = crawlArgs(web, [...seeds, web.url("slow.test")], out, [
      "--warc-upload",
      `s3://${s3.bucket}/${PREFIX}`,
      "--s3-endpoint",
      s3.endpoint,
      "--warc-roll-size",
      "8KiB",
      "--http",
      "127.0.0.1:0",
    ]);
    const run = h.crawl(argv, { out, env: ENV });
    let base = "";
    await waitFor(() => (base = /"dashboard":"(http:\/\/127\.0\.0\.1:\d+)\/dashboard"/.exec(run.stderr())?.[1] ?? "") !== "", {
      timeoutMs: 30_000,
      what: "crawl to log its HTTP address",
      run,
    });
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: "every expected page",
      hosts: ["site0.test"],
    });
    const captured = new Map<string, Array<{ warc: { file: string; offset: number; length: number } }>>();
    for (const url of expected.pages)
      captured.set(url, (await (await fetch(`${base}/v1/captures?url=${encodeURIComponent(url)}`)).json()) as never);
    const { exit } = await interrupt(run, 30_000);
    expect({ code: exit.code, output: exit.code === 0 ? "" : describeOutput(run) }).toEqual({ code: 0, output: "" });

    // Once stopped, every file is in the bucket: read each capture back from the object its location names.
    const scratch = h.tempDir();
    const objectUrl = `s3://${s3.bucket}/${PREFIX}`;
    const problems: string[] = [];
    for (const [url, captures] of captured) {
      if (captures.length !== 1) problems.push(`${url}: ${captures.length} captures`);
      for (const { warc } of captures) {
        if (!warc.file.startsWith(objectUrl)) {
          problems.push(`${url}: ${warc.file} is not under ${objectUrl}`);
          continue;
        }
        const name = warc.file.slice(objectUrl.length);
        const path = join(scratch, name);
        if (!existsSync(path)) writeFileSync(path, (await readObject(s3.client, `${PREFIX}${name}`)) ?? new Uint8Array());
        const problem = captureProblem(path, url, warc);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    const names = (await s3.client.listObjects(PREFIX)).map((o) => o.key.slice(PREFIX.length));
    const warcs = names.filter((n) => n.endsWith(".warc.gz"));
    expect(names.filter((n) => n.endsWith(".warc.wet.gz"))).toEqual(warcs.map((n) => n.replace(/\.warc\.gz$/, ".warc.wet.gz")));
    for (const name of names.filter((n) => n.endsWith(".gz"))) {
      if (!existsSync(join(scratch, name))) writeFileSync(join(scratch, name), (await readObject(s3.client, `${PREFIX}${name}`))!);
    }
    const wet = checkWetFiles(warcs.map((n) => join(scratch, n)));
    expect(wet.problems).toEqual([]);
    expect(missing(expected.pages, wet.withText)).toEqual([]);
  }, 90_000);
});
