/**
 * The WARC upload scenario, run once per runtime (fetch-node-upload-bun.test.ts, -deno.test.ts): a fetch
 * node configured as a fleet would (`--warc-upload`, endpoint by flag, credentials and region in the AWS_*
 * environment) fetches pages and ships its WARC files and CDXJ indexes to a real S3-protocol server on
 * loopback, through a proxy that can stall requests. On the way:
 *
 *   1. normal work: finished files reach the bucket and leave the disk;
 *   2. the store goes down (killed) while pages keep coming: files wait on disk, /metrics shows them
 *      pending, and once the store is back they are all uploaded;
 *   3. the node is killed (SIGKILL) while an upload hangs and a file is still open; a node started again
 *      with the same id repairs the open file and uploads every leftover exactly once, under its name.
 *
 * At the end the bucket is read back: every page whose result the node published is in a WARC object;
 * each object carries its own name in its warcinfo record; no record is in two objects; every WARC has
 * its index; nothing is left on disk.
 */
import { expect } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { FetchResult, FetchTask } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { readBucketWarcs, repeatedRecordIds } from "../support/bucket-warcs.ts";
import { startFaultProxy, startS3, TEST_CREDENTIALS, TEST_REGION } from "../support/s3.ts";
import { collectResults, startNode, startRig, waitUntil, PARTITIONS, type NodeProcess, type Runtime } from "./fetch-node-harness.ts";

const PREFIX = "fleet/us";

export async function fetchNodeUploadScenario(runtime: Runtime): Promise<void> {
  const rig = await startRig();
  const web = await startPages();
  const s3 = await startS3();
  const proxy = await startFaultProxy(s3.endpoint);
  const nodeId = `up-${runtime}`;
  const env = {
    AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
    AWS_REGION: TEST_REGION,
  };
  const start = (endpoint: string) =>
    startNode(
      rig,
      runtime,
      nodeId,
      (cmd) => [
        ...cmd,
        "--warc-upload",
        `s3://${s3.bucket}/${PREFIX}`,
        "--s3-endpoint",
        endpoint,
        // Every page pair is ~1.5 KB: each write finishes the file before it, and the last file stays open
        // (its age limit is longer than the test's phases) until the node stops.
        "--warc-roll-size",
        "1KiB",
        "--warc-roll-age",
        "5m",
        "--warc-upload-drain",
        "20s",
        // The recovery line is checked in the text format (the default on a pipe is JSON).
        "--log-format",
        "text",
      ],
      env,
    );
  const results = collectResults(rig, partitionOf(web.host, PARTITIONS));
  let node: NodeProcess | undefined;
  let sent = 0;
  const sendPages = async (n: number) => {
    for (let i = 0; i < n; i++) await rig.bus.publishTask("us", page(web.host, `${runtime}-p${++sent}`));
  };
  const pagesDone = (n: number) => () => (results.got.filter((r) => r.kind === "response").length >= n ? true : undefined);
  const out = () => `${node?.output() ?? ""}\n--- s3 server:\n${s3.log()}`;
  const localWarcs = () => listWarcs(rig.warcDir);
  const bucket = async () => (await s3.client.listObjects(`${PREFIX}/`)).map((o) => o.key.slice(PREFIX.length + 1)).sort();

  try {
    // 1. Normal work.
    node = start(proxy.endpoint);
    const record = await node.record();
    await sendPages(4);
    await waitUntil(pagesDone(4), 30_000, "4 pages fetched", out);
    await waitUntil(
      async () => ((await bucket()).filter((k) => k.endsWith(".warc.gz")).length >= 3 ? true : undefined),
      30_000,
      "WARC files in the bucket",
      out,
    );

    // 2. The store is down for a while; pages keep coming and their files wait on disk.
    await s3.kill();
    await sendPages(4);
    await waitUntil(pagesDone(8), 30_000, "4 more pages fetched while the store is down", out);
    const pending = await waitUntil(
      async () => {
        const text = await (await fetch(`${record.httpAddress}/metrics`)).text();
        const files = Number(/crawler_warc_upload_pending_files\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
        return files >= 2 ? files : undefined;
      },
      30_000,
      "files pending upload on /metrics while the store is down",
      out,
    );
    expect(pending).toBeGreaterThanOrEqual(2);
    expect(readdirSync(join(rig.warcDir, "finished")).length).toBeGreaterThanOrEqual(2);
    await s3.restart();
    await waitUntil(
      () => (localWarcs().finished.length === 0 ? true : undefined),
      90_000,
      "the files that waited uploaded once the store is back",
      out,
    );

    // 3. Killed mid-upload, with a file open: every upload from now on stalls.
    proxy.inject("hang", 1_000, /^PUT /);
    await sendPages(3);
    await waitUntil(pagesDone(11), 30_000, "3 more pages fetched", out);
    await waitUntil(() => (proxy.requests.some((r) => r.action === "hang") ? true : undefined), 30_000, "an upload in flight", out);
    node.child.kill("SIGKILL");
    await node.exited;
    const left = localWarcs();
    const openWarcs = left.open.filter((n) => n.endsWith(".warc.gz"));
    expect(openWarcs).toHaveLength(1);
    expect(left.finished.length).toBeGreaterThan(0);
    const leftovers = [...left.finished, ...left.open].filter((n) => n.endsWith(".warc.gz"));
    // What a kill mid-write leaves in the open file: the first bytes of a record.
    tearTail(join(rig.warcDir, openWarcs[0]!));

    const before = proxy.requests.length;
    proxy.clearFaults();
    node = start(proxy.endpoint);
    await node.record();
    await waitUntil(
      async () => {
        const now = localWarcs();
        const keys = await bucket();
        return now.finished.length === 0 && now.open.length === 0 && leftovers.every((n) => keys.includes(n)) ? true : undefined;
      },
      90_000,
      "the leftovers of the killed node uploaded by the next start",
      out,
    );
    expect(node.output()).toMatch(/files left by the previous run are queued for upload files=\d+ tornBytesCut=12\b/);
    const putsAfterRestart = proxy.requests
      .slice(before)
      .filter((r) => r.line.startsWith("PUT ") && r.action === "forward")
      .map((r) => r.line.split(" ")[1]!.split("?")[0]!);
    for (const name of leftovers)
      expect({ name, puts: putsAfterRestart.filter((p) => p.endsWith(`/${name}`)).length }).toEqual({ name, puts: 1 });

    const code = await node.stop();
    expect({ code, output: code === 0 ? "" : node.output() }).toEqual({ code: 0, output: "" });

    // The bucket, read back (every index line is checked against its record while reading).
    const stored = await readBucketWarcs(s3.client, `${PREFIX}/`);
    const warcs = stored.names.filter((k) => k.endsWith(".warc.gz"));
    expect(stored.names.filter((k) => k.endsWith(".cdxj"))).toEqual(warcs.map((k) => k.replace(".warc.gz", ".cdxj")));
    expect(stored.names.every((k) => k.startsWith(`${nodeId}-`))).toBe(true);
    expect(repeatedRecordIds(stored)).toEqual([]);
    const urls = new Set<string>();
    for (const [key, records] of stored.records) {
      expect(records.find((r) => r.type === "warcinfo")?.warcHeaders["WARC-Filename"]).toBe(key);
      for (const r of records) if (r.type === "response") urls.add(r.url!);
    }
    const fetched = results.got.filter((r: FetchResult) => r.kind === "response").map((r) => r.url);
    expect(fetched.length).toBe(11);
    for (const url of fetched) expect(urls.has(url)).toBe(true);
    expect(localWarcs()).toEqual({ open: [], finished: [] });
    await results.sub.stop();
  } finally {
    await node?.stop();
    await proxy.close();
    await s3.stop();
    await new Promise((r) => web.server.close(r));
    await rig.close();
  }
}

function page(host: string, id: string): FetchTask {
  return {
    taskId: id,
    kind: "page",
    url: `http://${host}/${id}`,
    host,
    partition: partitionOf(host, PARTITIONS),
    depth: 0,
    redirectHops: 0,
    hostGapMs: 0,
    issuedAt: Date.now(),
  };
}

/** Pages that differ from each other (the node stores each distinct content once), on 127.0.0.1. */
async function startPages(): Promise<{ server: Server; host: string }> {
  const server = createServer((req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><title>${req.url}</title><p>Page ${req.url}, one of a kind.</p>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function listWarcs(dir: string): { open: string[]; finished: string[] } {
  const files = (d: string) =>
    readdirSync(d)
      .filter((n) => n.endsWith(".warc.gz") || (n.endsWith(".cdxj") && n !== "index.cdxj"))
      .sort();
  return { open: files(dir), finished: files(join(dir, "finished")) };
}

/** Appends the first bytes of a gzip member, as a write cut by a kill leaves them. */
function tearTail(path: string): void {
  writeFileSync(path, Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x55, 0x8f), { flag: "a" });
}
