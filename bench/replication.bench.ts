/**
 * The cost of replicated partition state (docs/cluster.md, "Replicated partition state"), in CPU per page
 * rather than pages/s (CPU moves far less than rates when other work shares the box):
 *
 *  1. the frontier's commits with and without the change journal: a crawl-shaped transaction per page
 *     (its queue row dequeued, its URL state and schedule, its host's state, ~5 new links queued), CPU µs
 *     per page and journal bytes per page; and with and without `crawl --http`'s feed of fetched pages
 *     (adapters/sqlite SqlitePageFeed: each batch's records published before its commit, as the frontier's
 *     `feed` option does), CPU µs per page and feed bytes on disk per page;
 *  2. sending the journal to JetStream (real nats-server, one message per partition in flight): rows/s,
 *     CPU µs per page, and the at-risk window (how long a committed row waits before it is stored);
 *  3. restoring a partition of 100k queued URLs and 50k URL states into an empty store: from the log
 *     alone, and from a snapshot (what a new owner does after a node is lost with its disk).
 *
 *   bun bench/replication.bench.ts            # BENCH_SCALE=0.2 for a quick run; BENCH_PARTS=commits for part 1 only
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNats, JetStreamPartitionReplica } from "../adapters/nats/index.ts";
import { SqlitePageFeed } from "../adapters/sqlite/index.ts";
import type { PageRecord } from "../core/feed/index.ts";
import { FrontierStore } from "../engine/frontier/index.ts";
import { Replicator } from "../frontier-node/replication/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { startNats } from "../tests/support/nats.ts";

const SCALE = Number(process.env["BENCH_SCALE"] ?? "1");
const PAGES = Math.round(20_000 * SCALE);
const RESTORE_URLS = Math.round(100_000 * SCALE);
const PARTITIONS = 16;
const REGION = "bench";
const dir = mkdtempSync(join(tmpdir(), "replication-bench-"));

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const host = (i: number) => `site${i % 500}.test`;
const HOST_STATE = {
  state: {
    nextAllowedAt: 0,
    gapMs: 1000,
    inFlight: false,
    inFlightSince: null,
    paused: false,
    crawlDelayMs: 0,
    throttleMs: 0,
    consecutiveFailures: 0,
    failureRate: 0,
    fetches: 1,
    failures: 0,
    throttles: 0,
    lastStatus: 200,
    lastError: null,
  },
  pagesToday: { day: "2026-01-01", count: 1 },
};

/** One page's worth of frontier writes, as completeMany makes them, in one transaction of `batch` pages. */
function commitPages(store: FrontierStore, from: number, batch: number): void {
  store.tx(() => {
    for (let i = from; i < from + batch; i++) {
      const h = host(i);
      const p = i % PARTITIONS;
      const url = `http://${h}/page/${i}`;
      const seq = store.enqueue({ partition: p, host: h, priority: 2, url, depth: 1, hops: 0, kind: "page" })!;
      store.dequeue({ partition: p, host: h, priority: 2, seq });
      store.recordFetch({
        partition: p,
        url,
        host: h,
        state: "fetched",
        depth: 1,
        failures: 0,
        lastStatus: 200,
        lastFetchedAt: Date.now(),
        refetchMs: 86_400_000,
        etag: '"abc"',
        lastModified: null,
        fingerprint: "f".repeat(32),
        simhash: "0123456789abcdef",
        changedLastVisit: false,
        note: null,
      });
      store.schedule({ partition: p, url, host: h, priority: 2, depth: 1, dueAt: Date.now() + 86_400_000, kind: "page" });
      store.saveHost(h, p, HOST_STATE);
      for (let k = 0; k < 5; k++)
        store.enqueue({ partition: p, host: h, priority: 3, url: `http://${h}/page/${i}/link/${k}`, depth: 2, hops: 0, kind: "page" });
    }
    store.saveSeq();
  });
}

function commits(journal: boolean): { cpuUsPerPage: number; journalBytesPerPage: number } {
  const store = FrontierStore.open(join(dir, `commits-${journal}.sqlite`), { journal });
  const before = cpuMs();
  for (let i = 0; i < PAGES; i += 64) commitPages(store, i, 64);
  const cpu = cpuMs() - before;
  const bytes = store.journal?.backlog().bytes ?? 0;
  store.close();
  return { cpuUsPerPage: (cpu * 1000) / PAGES, journalBytesPerPage: bytes / PAGES };
}

/** A page result's feed record as core/feed pageRecordOf builds it, with a crawl's typical sizes. */
function feedRecord(i: number): PageRecord {
  return {
    job: i % 3 === 0 ? "news" : "default",
    url: `http://${host(i)}/page/${i}`,
    status: 200,
    outcome: "fetched",
    fetchedAt: new Date(1_733_300_000_000 + i).toISOString(),
    contentType: "text/html; charset=utf-8",
    length: 25_000,
    digest: "f".repeat(32),
    simhash: "0123456789abcdef",
    warc: { file: "crawl-20261204-00001.warc.gz", offset: i * 9_000, length: 8_900 },
    text: { file: "crawl-20261204-00001.warc.wet.gz", offset: i * 3_000, length: 2_900 },
    linksFound: 48,
    region: "local",
  };
}

/** Part 1's commits without the journal, each batch's feed records published first when `feed` (as `crawl --http`). */
async function commitsWithFeed(feed: boolean): Promise<{ cpuUsPerPage: number; feedBytesPerPage: number }> {
  const store = FrontierStore.open(join(dir, `feed-${feed}.sqlite`), { journal: false });
  const path = join(dir, "pages.sqlite");
  const pages = feed ? SqlitePageFeed.open(path, { maxAgeMs: 7 * 86_400_000, maxBytes: 10 * 1024 ** 3, now: () => Date.now() }) : undefined;
  const before = cpuMs();
  for (let i = 0; i < PAGES; i += 64) {
    if (pages) {
      const items: Array<{ id: string; record: PageRecord }> = [];
      for (let k = i; k < i + 64; k++) items.push({ id: `m5x2k-${k.toString(36)}`, record: feedRecord(k) });
      await pages.publish(items);
    }
    commitPages(store, i, 64);
  }
  const cpu = cpuMs() - before;
  store.close();
  await pages?.close();
  return { cpuUsPerPage: (cpu * 1000) / PAGES, feedBytesPerPage: pages ? statSync(path).size / PAGES : 0 };
}

async function main(): Promise<void> {
  const off = commits(false);
  const on = commits(true);
  console.log(`commits (64 pages per transaction, ${PAGES} pages):`);
  console.log(`  without journal  ${off.cpuUsPerPage.toFixed(1)} µs CPU/page`);
  console.log(`  with journal     ${on.cpuUsPerPage.toFixed(1)} µs CPU/page, ${Math.round(on.journalBytesPerPage)} journal bytes/page`);
  // The feed's cost beside the commit it rides with, in alternating runs (the box's load moves between them).
  const bare: number[] = [];
  const fed: number[] = [];
  let feedBytes = 0;
  for (let run = 0; run < 3; run++) {
    bare.push((await commitsWithFeed(false)).cpuUsPerPage);
    const f = await commitsWithFeed(true);
    fed.push(f.cpuUsPerPage);
    feedBytes = f.feedBytesPerPage;
    rmSync(join(dir, "pages.sqlite"), { force: true });
    rmSync(join(dir, "pages.sqlite-wal"), { force: true });
    rmSync(join(dir, "pages.sqlite-shm"), { force: true });
  }
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`commits with crawl --http's feed of fetched pages (pages.sqlite, 64 records per publish; median of 3):`);
  console.log(`  without feed     ${median(bare).toFixed(1)} µs CPU/page`);
  console.log(
    `  with feed        ${median(fed).toFixed(1)} µs CPU/page (x${(median(fed) / median(bare)).toFixed(2)}), ${Math.round(feedBytes)} feed bytes on disk/page`,
  );
  if (process.env["BENCH_PARTS"] === "commits") {
    rmSync(dir, { recursive: true, force: true });
    return;
  }

  const nats = await startNats({ jetstream: true });
  const nc = await connectNats([nats.url], "replication-bench");
  const replica = new JetStreamPartitionReplica(nc);
  try {
    // 2. Sending: commits as above while the publisher runs; measure CPU per page and the lag of each commit.
    const store = FrontierStore.open(join(dir, "send.sqlite"), { journal: true });
    const replicator = new Replicator({
      nodeId: "bench",
      region: REGION,
      store,
      replica,
      snapshotIntervalMs: 3_600_000,
      rowsPerSnapshot: Number.MAX_SAFE_INTEGER,
      lastSeen: async () => undefined,
      log: silentLog,
      now: Date.now,
    });
    await replicator.start();
    for (let p = 0; p < PARTITIONS; p++) await replicator.prepare(p, false);
    const lags: number[] = [];
    const before = cpuMs();
    const started = performance.now();
    for (let i = 0; i < PAGES; i += 64) {
      commitPages(store, i, 64);
      const at = performance.now();
      const p = i % PARTITIONS;
      void replicator.whenStored(p, replicator.lastRow(p)).then(() => lags.push(performance.now() - at));
      if ((i / 64) % 8 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    for (let p = 0; p < PARTITIONS; p++) await replicator.flushed(p);
    const wall = performance.now() - started;
    const cpu = cpuMs() - before;
    lags.sort((a, b) => a - b);
    const pct = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!.toFixed(1);
    console.log(`sending to JetStream (${PARTITIONS} partitions, one message each in flight):`);
    console.log(
      `  ${Math.round(PAGES / (wall / 1000))} pages/s committed and stored, ${((cpu * 1000) / PAGES).toFixed(1)} µs CPU/page (commit + send), ` +
        `${replicator.counters()["replication.messages"]} messages`,
    );
    console.log(`  commit -> stored in the replica (back to back): p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`);
    // As a frontier node commits: one group every 50 ms (64 pages over the partitions), for a few seconds.
    const paced: number[] = [];
    for (let k = 0; k < Math.max(20, Math.round(100 * SCALE)); k++) {
      commitPages(store, PAGES + k * 64, 64);
      const at = performance.now();
      const waits = [];
      for (let p = 0; p < PARTITIONS; p++) waits.push(replicator.whenStored(p, replicator.lastRow(p)));
      void Promise.all(waits).then(() => paced.push(performance.now() - at));
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let p = 0; p < PARTITIONS; p++) await replicator.flushed(p);
    paced.sort((a, b) => a - b);
    const q = (x: number) => paced[Math.min(paced.length - 1, Math.floor(x * paced.length))]!.toFixed(1);
    console.log(`  commit -> stored, one 64-page group commit every 50 ms: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
    await replicator.stop();
    store.close();

    // 3. Restore: one partition of RESTORE_URLS queued URLs and half as many URL states.
    const source = FrontierStore.open(join(dir, "restore-source.sqlite"), { journal: true });
    const writer = new Replicator({
      nodeId: "source",
      region: "restore",
      store: source,
      replica,
      snapshotIntervalMs: 3_600_000,
      rowsPerSnapshot: Number.MAX_SAFE_INTEGER,
      lastSeen: async () => undefined,
      log: silentLog,
      now: Date.now,
    });
    await writer.start();
    await writer.prepare(0, false);
    for (let i = 0; i < RESTORE_URLS; i += 500) {
      source.tx(() => {
        for (let k = i; k < i + 500; k++) {
          const h = host(k);
          source.enqueue({ partition: 0, host: h, priority: 2, url: `http://${h}/q/${k}`, depth: 1, hops: 0, kind: "page" });
          if (k % 2 === 0) source.setUrlState({ partition: 0, url: `http://${h}/done/${k}`, host: h, depth: 1 }, "fetched");
        }
      });
    }
    await writer.flushed(0);
    const restoreInto = async (label: string) => {
      const target = FrontierStore.open(join(dir, `restore-${label}.sqlite`), { journal: true });
      const node = new Replicator({
        nodeId: `target-${label}`,
        region: "restore",
        store: target,
        replica,
        snapshotIntervalMs: 3_600_000,
        rowsPerSnapshot: Number.MAX_SAFE_INTEGER,
        lastSeen: async () => undefined,
        log: silentLog,
        now: Date.now,
      });
      await node.start();
      const t0 = performance.now();
      const c0 = cpuMs();
      const prep = await node.prepare(0, false);
      const ms = performance.now() - t0;
      const cpu = cpuMs() - c0;
      if (prep.outcome !== "restored" || target.totalQueued() !== RESTORE_URLS)
        throw new Error(
          `restore ${label} went wrong: ${prep.outcome}, ${target.totalQueued()} queued, ${JSON.stringify(prep.outcome === "restored" ? prep.report : {})}`,
        );
      console.log(
        `  ${label.padEnd(14)} ${Math.round(ms)} ms (${Math.round(cpu)} ms CPU) for ${RESTORE_URLS} queued URLs + ${RESTORE_URLS / 2} URL states: ` +
          `${Math.round((ms * 100_000) / RESTORE_URLS)} ms per 100k URLs`,
      );
      await node.stop();
      target.close();
      return node;
    };
    console.log("restoring one partition into an empty store:");
    await restoreInto("from the log");
    const t0 = performance.now();
    await writer.snapshot(0);
    console.log(`  (snapshot of it taken in ${Math.round(performance.now() - t0)} ms)`);
    // The log now holds the claim of the first restore only: the next restore reads the snapshot.
    await restoreInto("from snapshot");
    await writer.stop();
    source.close();
  } finally {
    await nc.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
