/**
 * The frontier node's feed outbox (frontier-node/node/feed-outbox.ts) against a real nats-server:
 *
 *  1. appending: what a frontier's batch waits for now instead of the stream's ack, CPU µs per record and
 *     ms per batch of 64, with the drainer idle (nothing published meanwhile);
 *  2. draining a backlog (what piled up while the feed's region was away): records/s to CRAWL_PAGES, CPU µs
 *     per record, and the outbox's bytes on disk per waiting record.
 *
 *   bun bench/feed-outbox.bench.ts            # BENCH_SCALE=0.2 for a quick run
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, JetStreamPageFeed } from "../adapters/nats/index.ts";
import { SqlitePageFeed } from "../adapters/sqlite/index.ts";
import type { PageRecord } from "../core/feed/index.ts";
import { FeedOutbox } from "../frontier-node/node/feed-outbox.ts";
import { startNats } from "../tests/support/nats.ts";

const SCALE = Number(process.env["BENCH_SCALE"] ?? "1");
const RECORDS = Math.round(50_000 * SCALE);
const BATCH = 64;
const dir = mkdtempSync(join(tmpdir(), "feed-outbox-bench-"));

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function item(i: number): { id: string; record: PageRecord } {
  return {
    id: `frontier-1:${i.toString(36)}:${(i * 7919).toString(36)}`,
    record: {
      job: "default",
      url: `https://site${i % 500}.test/section/${i}/a-page-with-a-longish-path.html`,
      status: 200,
      outcome: "fetched",
      fetchedAt: new Date(1_800_000_000_000 + i).toISOString(),
      contentType: "text/html; charset=utf-8",
      length: 18_000 + (i % 1000),
      digest: "sha1:2JHRN3TDXDLKVOS7PXB5GCFV3EVJCFLK",
      simhash: "9f3c2a1b4d5e6f70",
      warc: { file: "crawl-20261204-000001-frontier-1.warc.gz", offset: i * 9_000, length: 8_900 },
      text: { file: "crawl-20261204-000001-frontier-1.warc.wet.gz", offset: i * 2_000, length: 1_900 },
      linksFound: 40,
      region: "region-1",
    },
  };
}

const nats = await startNats();
const nc = await connectNats(nats.url, "feed-outbox-bench");
try {
  const stream = await JetStreamPageFeed.open(nc, {
    stream: "BENCH_PAGES",
    retention: { maxAgeMs: 3_600_000, maxBytes: 1 << 30, duplicateWindowMs: 120_000 },
  });
  const path = join(dir, "feed-outbox.sqlite");
  const table = SqlitePageFeed.open(path, { maxAgeMs: 3_600_000, maxBytes: 1 << 30, now: () => Date.now() });
  const outbox = new FeedOutbox({ outbox: table, stream });

  // 1. Appending, nothing draining (the feed's region away).
  const batches: number[] = [];
  let cpu = cpuMs();
  for (let i = 0; i < RECORDS; i += BATCH) {
    const t = performance.now();
    await outbox.publish(Array.from({ length: Math.min(BATCH, RECORDS - i) }, (_, k) => item(i + k)));
    batches.push(performance.now() - t);
  }
  const appendCpu = cpuMs() - cpu;
  batches.sort((a, b) => a - b);
  const bytes = statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  console.log(
    `append: ${RECORDS} records in batches of ${BATCH}: ${((appendCpu * 1000) / RECORDS).toFixed(1)} µs CPU/record, ` +
      `batch p50 ${batches[Math.floor(batches.length / 2)]!.toFixed(2)} ms, p99 ${batches[Math.floor(batches.length * 0.99)]!.toFixed(2)} ms; ` +
      `outbox on disk ${(bytes / RECORDS).toFixed(0)} B/record (record JSON ${JSON.stringify(item(1).record).length} B)`,
  );

  // 2. Draining the backlog to the stream.
  cpu = cpuMs();
  const t0 = performance.now();
  outbox.start();
  while (outbox.gauges()["feedOutboxRecords"]! > 0) await Bun.sleep(20);
  const secs = (performance.now() - t0) / 1000;
  const drainCpu = cpuMs() - cpu;
  const info = await (await jetstreamManager(nc)).streams.info("BENCH_PAGES");
  console.log(
    `drain: ${RECORDS} records to the stream in ${secs.toFixed(2)} s = ${(RECORDS / secs).toFixed(0)} records/s, ` +
      `${((drainCpu * 1000) / RECORDS).toFixed(1)} µs CPU/record in this process; stream holds ${info.state.messages}`,
  );
  await outbox.stop();
} finally {
  await nc.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
