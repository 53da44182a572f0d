/**
 * The PageFeed contract (core/ports/page-feed.ts), one suite against MemoryPageFeed, `crawl`'s SqlitePageFeed
 * and JetStreamPageFeed on a real nats-server: records come back per job in the order stored, paged by cursor; an id published
 * twice is stored once; reading changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PageRecord } from "../../core/feed/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryPageFeed } from "../../adapters/memory/index.ts";
import { SqlitePageFeed } from "../../adapters/sqlite/index.ts";
import { connectNats, JetStreamPageFeed, type NatsConnection } from "../../adapters/nats/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

function record(job: string, url: string): PageRecord {
  return {
    job,
    url,
    status: 200,
    outcome: "fetched",
    fetchedAt: "2026-12-04T12:00:00.000Z",
    contentType: null,
    length: 10,
    digest: "ab",
    simhash: null,
    warc: null,
    text: null,
    linksFound: 3,
    region: "region-1",
  };
}

function contract(name: string, fresh: () => Promise<PageFeed>): void {
  describe(`${name} - PageFeed contract`, () => {
    test(`${name} - a job's records in the order stored, paged by cursor; other jobs' apart; a repeated id stored once`, async () => {
      const feed = await fresh();
      const items = Array.from({ length: 7 }, (_, i) => ({
        id: `t${i}`,
        record: record(i % 2 === 0 ? "news" : "blogs", `http://a.test/${i}`),
      }));
      await feed.publish(items.slice(0, 4));
      await feed.publish([items[2]!, ...items.slice(4)]); // t2 again: a redelivery
      const first = await feed.read("news", 0, 2);
      expect(first.records.map((r) => r.url)).toEqual(["http://a.test/0", "http://a.test/2"]);
      const second = await feed.read("news", first.next, 2);
      expect(second.records.map((r) => r.url)).toEqual(["http://a.test/4", "http://a.test/6"]);
      const end = await feed.read("news", second.next, 2);
      expect(end).toEqual({ records: [], next: second.next });
      expect((await feed.read("blogs", 0, 100)).records.map((r) => r.url)).toEqual([
        "http://a.test/1",
        "http://a.test/3",
        "http://a.test/5",
      ]);
      expect((await feed.read("news", 0, 100)).records).toEqual([items[0], items[2], items[4], items[6]].map((i) => i!.record));
      expect((await feed.read("none", 0, 10)).records).toEqual([]);
      // Read again from the start: the same records.
      expect((await feed.read("news", 0, 2)).records).toEqual(first.records);
      await feed.close();
    });
  });
}

contract("MemoryPageFeed", async () => new MemoryPageFeed({ maxAgeMs: 60_000, maxRecords: 1000, now: () => Date.now() }));

const dir = mkdtempSync(join(tmpdir(), "page-feed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
contract("SqlitePageFeed", async () =>
  SqlitePageFeed.open(join(dir, `pages-${++files}.sqlite`), { maxAgeMs: 60_000, maxBytes: 1 << 20, now: () => Date.now() }),
);

let nats: NatsServer;
let nc: NatsConnection;
let n = 0;
beforeAll(async () => {
  nats = await startNats();
  nc = await connectNats(nats.url, "page-feed-contract");
});
afterAll(async () => {
  await nc.close();
  await nats.stop();
});
contract("JetStreamPageFeed", async () =>
  JetStreamPageFeed.open(nc, { stream: `PAGES_T${++n}`, retention: { maxAgeMs: 3_600_000, maxBytes: 1 << 20, duplicateWindowMs: 60_000 } }),
);

test("MemoryPageFeed - keeps records by age and count, the oldest go first", async () => {
  const clock = { now: 0 };
  const feed = new MemoryPageFeed({ maxAgeMs: 1000, maxRecords: 3, now: () => clock.now });
  await feed.publish([1, 2, 3, 4].map((i) => ({ id: `t${i}`, record: record("j", `http://a.test/${i}`) })));
  expect((await feed.read("j", 0, 10)).records.map((r) => r.url)).toEqual(["http://a.test/2", "http://a.test/3", "http://a.test/4"]);
  clock.now = 1500;
  await feed.publish([{ id: "t5", record: record("j", "http://a.test/5") }]);
  expect((await feed.read("j", 0, 10)).records.map((r) => r.url)).toEqual(["http://a.test/5"]);
});

test("SqlitePageFeed - keeps records by age and size, the oldest go first; records and their cursors survive a reopen", async () => {
  const clock = { now: 0 };
  const path = join(dir, "retention.sqlite");
  const one = JSON.stringify(record("j", "http://a.test/1")).length + "t1".length;
  const open = () => SqlitePageFeed.open(path, { maxAgeMs: 1000, maxBytes: 3 * one, now: () => clock.now });
  let feed = open();
  await feed.publish([1, 2, 3, 4].map((i) => ({ id: `t${i}`, record: record("j", `http://a.test/${i}`) })));
  const kept = await feed.read("j", 0, 10);
  expect(kept.records.map((r) => r.url)).toEqual(["http://a.test/2", "http://a.test/3", "http://a.test/4"]);
  await feed.close();
  feed = open();
  expect(await feed.read("j", 0, 10)).toEqual(kept);
  // A record published after the reopen gets the next sequence, never one used before.
  await feed.publish([{ id: "t5", record: record("j", "http://a.test/5") }]);
  const after = await feed.read("j", kept.next, 10);
  expect([after.records.map((r) => r.url), after.next]).toEqual([["http://a.test/5"], kept.next + 1]);
  clock.now = 1500;
  expect((await feed.read("j", 0, 10)).records).toEqual([]);
  await feed.publish([{ id: "t6", record: record("j", "http://a.test/6") }]);
  expect((await feed.read("j", 0, 10)).records.map((r) => r.url)).toEqual(["http://a.test/6"]);
  await feed.close();
});
