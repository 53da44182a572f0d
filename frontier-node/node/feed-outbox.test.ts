/**
 * The frontier node's feed outbox (feed-outbox.ts) over a real SQLite file and a real nats-server: records
 * reach the stream in the order given; while the server is down they wait on disk (publish never waits for
 * NATS) and all arrive once it is back; a crash between the stream's ack and the delete stores nothing twice;
 * the outbox's bound drops the oldest, counted. Judged from the stream's own messages.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNats, JetStreamPageFeed, type NatsConnection } from "../../adapters/nats/index.ts";
import { SqlitePageFeed } from "../../adapters/sqlite/index.ts";
import type { PageRecord } from "../../core/feed/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { silentLog } from "../../kit/log/index.ts";
import { startNats, type NatsServer } from "../../tests/support/nats.ts";
import { FeedOutbox } from "./feed-outbox.ts";
import { openedOnFirstUse } from "../../core/feed/index.ts";

const dir = mkdtempSync(join(tmpdir(), "feed-outbox-"));
const natsDir = mkdtempSync(join(tmpdir(), "feed-outbox-nats-"));
let nats: NatsServer;
let nc: NatsConnection;
let streams = 0;
let files = 0;

beforeAll(async () => {
  nats = await startNats({ storeDir: natsDir });
  nc = await connectNats(nats.url, "feed-outbox-test");
});
afterAll(async () => {
  await nc.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(natsDir, { recursive: true, force: true });
});

function item(i: number): { id: string; record: PageRecord } {
  const record: PageRecord = {
    job: "news",
    url: `http://a.test/${i}`,
    status: 200,
    outcome: "fetched",
    fetchedAt: "2026-12-04T12:00:00.000Z",
    contentType: "text/html",
    length: 10,
    digest: "ab",
    simhash: null,
    warc: null,
    text: null,
    linksFound: 1,
    region: "region-1",
  };
  return { id: `task-${i}`, record };
}

const urls = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `http://a.test/${from + k}`);

async function streamUrls(feed: JetStreamPageFeed): Promise<string[]> {
  return (await feed.read("news", 0, 10_000)).records.map((r) => r.url);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

function openOutbox(path: string, bound: { maxBytes?: number } = {}, onDropped?: (n: number) => void): SqlitePageFeed {
  return SqlitePageFeed.open(path, { maxAgeMs: 3_600_000, maxBytes: bound.maxBytes ?? 1 << 30, now: () => Date.now(), onDropped });
}

async function freshStream(): Promise<JetStreamPageFeed> {
  return JetStreamPageFeed.open(nc, {
    stream: `OUTBOX_T${++streams}`,
    retention: { maxAgeMs: 3_600_000, maxBytes: 1 << 26, duplicateWindowMs: 120_000 },
  });
}

test("FeedOutbox - records reach the stream in order; while NATS is down they wait on disk and arrive once each after", async () => {
  const stream = await freshStream();
  const outbox = new FeedOutbox({
    outbox: openOutbox(join(dir, `o${++files}.sqlite`)),
    stream,
    batch: 7,
    minBackoffMs: 50,
    maxBackoffMs: 200,
  });
  outbox.start();
  for (let i = 0; i < 30; i += 10) await outbox.publish(Array.from({ length: 10 }, (_, k) => item(i + k)));
  await until("the first 30 records in the stream", async () => (await streamUrls(stream)).length >= 30);
  expect(await streamUrls(stream)).toEqual(urls(0, 30));

  await nats.stop();
  // NATS is down: publishing is local and resolves; the records wait in the outbox.
  for (let i = 30; i < 60; i += 10) await outbox.publish(Array.from({ length: 10 }, (_, k) => item(i + k)));
  expect(outbox.gauges().feedOutboxRecords).toBeGreaterThanOrEqual(30);
  await Bun.sleep(300);
  expect(outbox.gauges().feedOutboxRecords).toBeGreaterThanOrEqual(30);

  nats = await startNats({ storeDir: natsDir, port: nats.port });
  await until("the outbox to drain", () => outbox.gauges().feedOutboxRecords === 0);
  expect(await streamUrls(stream)).toEqual(urls(0, 60));
  expect(outbox.gauges()).toEqual({ feedOutboxRecords: 0, feedOutboxOldestAgeSeconds: 0 });
  await outbox.stop();
}, 60_000);

test("FeedOutbox - a node started while the feed's NATS is down opens the stream when it is back and publishes what waited", async () => {
  const name = `OUTBOX_T${++streams}`;
  let opens = 0;
  const stream = openedOnFirstUse(() => {
    opens++;
    return JetStreamPageFeed.open(nc, { stream: name });
  });
  await nats.stop();
  const outbox = new FeedOutbox({ outbox: openOutbox(join(dir, `o${++files}.sqlite`)), stream, minBackoffMs: 50, maxBackoffMs: 200 });
  outbox.start();
  await outbox.publish(Array.from({ length: 10 }, (_, k) => item(k)));
  await until("a failed open", () => opens >= 1);
  nats = await startNats({ storeDir: natsDir, port: nats.port });
  await until("the outbox to drain", () => outbox.gauges().feedOutboxRecords === 0);
  expect(await streamUrls(await JetStreamPageFeed.open(nc, { stream: name }))).toEqual(urls(0, 10));
  expect(opens).toBeGreaterThan(1);
  await outbox.stop();
}, 60_000);

test("FeedOutbox - a crash between the stream's ack and the delete publishes again at the next start, stored once", async () => {
  const stream = await freshStream();
  const path = join(dir, `o${++files}.sqlite`);
  const table = openOutbox(path);
  let acked = 0;
  // The first batch is acked, then the process "dies" before the delete: the rows stay on disk.
  const crashing = {
    publish: (items: ReadonlyArray<{ id: string; record: PageRecord }>) => table.publish(items),
    oldest: (limit: number) => table.oldest(limit),
    removeThrough: () => {
      acked++;
      dying.stop();
    },
    backlog: () => table.backlog(),
    close: () => table.close(),
  };
  const dying: FeedOutbox = new FeedOutbox({ outbox: crashing, stream });
  await dying.publish(Array.from({ length: 20 }, (_, k) => item(k)));
  dying.start();
  await until("the first batch acked", () => acked > 0);
  await dying.stop();
  expect(await streamUrls(stream)).toEqual(urls(0, 20));

  const restarted = new FeedOutbox({ outbox: openOutbox(path), stream });
  expect(restarted.gauges().feedOutboxRecords).toBe(20);
  restarted.start();
  await until("the outbox to drain after the restart", () => restarted.gauges().feedOutboxRecords === 0);
  await restarted.publish([item(20)]);
  await until("the next record", async () => (await streamUrls(stream)).length >= 21);
  expect(await streamUrls(stream)).toEqual(urls(0, 21));
  await restarted.stop();
}, 30_000);

test("FeedOutbox - a delete that fails after the ack is tried again; the stream still holds each record once", async () => {
  const stream = await freshStream();
  const table = openOutbox(join(dir, `o${++files}.sqlite`));
  let failures = 0;
  const flaky = {
    publish: (items: ReadonlyArray<{ id: string; record: PageRecord }>) => table.publish(items),
    oldest: (limit: number) => table.oldest(limit),
    removeThrough: (seq: number) => {
      if (failures++ < 2) throw new Error("disk I/O error");
      table.removeThrough(seq);
    },
    backlog: () => table.backlog(),
    close: () => table.close(),
  };
  const outbox = new FeedOutbox({ outbox: flaky, stream, minBackoffMs: 20 });
  await outbox.publish(Array.from({ length: 12 }, (_, k) => item(k)));
  outbox.start();
  await until("the outbox to drain", () => outbox.gauges().feedOutboxRecords === 0);
  expect(failures).toBe(3);
  expect(await streamUrls(stream)).toEqual(urls(0, 12));
  await outbox.stop();
}, 30_000);

test("FeedOutbox - past its size bound the oldest records are dropped before they reach the stream, counted", async () => {
  const stream = await freshStream();
  const counters = new Counters();
  const one = JSON.stringify(item(0).record).length + "task-0".length;
  const table = openOutbox(join(dir, `o${++files}.sqlite`), { maxBytes: 5 * one }, FeedOutbox.dropReporter(counters, silentLog));
  const outbox = new FeedOutbox({ outbox: table, stream, counters });
  // Not started: nothing drains, as with a stream away for long.
  await outbox.publish(Array.from({ length: 8 }, (_, k) => item(k)));
  expect(outbox.gauges().feedOutboxRecords).toBe(5);
  expect(counters.get("feed.outbox.dropped")).toBe(3);
  outbox.start();
  await until("the outbox to drain", () => outbox.gauges().feedOutboxRecords === 0);
  expect(await streamUrls(stream)).toEqual(urls(3, 8));
  await outbox.stop();
}, 30_000);
