/**
 * The road not taken for "Redis is a cache" (`bun bench/seen-confirm.bench.ts`): instead of detecting a
 * lost seen-set and rebuilding it (adapters/redis/seen-script.ts, engine/frontier/seen-recovery.ts),
 * confirm every Bloom "not seen" in the frontier store before admitting. This measures what that would
 * cost on a store of realistic shape (SQLite file, WAL, the frontier's own schema and statements):
 *
 *  - `isKnown` for URLs the store does not hold (every truly new URL would pay it): a state-row lookup and
 *    a scan of the host's queue, whose key has no URL in it;
 *  - the same once an index on (partition, url) makes the queue lookup a point read, and what that index
 *    costs every admission (`enqueue` in a transaction, as a group commit does).
 *
 * Sizes scale with BENCH_SCALE. Figures are floors on a shared box; compare the rows of one run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrontierStore } from "../engine/frontier/index.ts";

const scale = Number(process.env.BENCH_SCALE ?? "1");
const HOSTS = Math.max(10, Math.round(2_000 * scale));
const QUEUED = Math.round(400_000 * scale);
const FETCHED = Math.round(400_000 * scale);
const LOOKUPS = Math.round(20_000 * scale);
const ADMITS = Math.round(100_000 * scale);
const TX = 500;
const P = 64;

const host = (i: number) => `site${i % HOSTS}.example`;
const url = (i: number, tag: string) => `https://${host(i)}/${tag}/${i}/page-${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}.html`;
const partition = (i: number) => (i % HOSTS) % P;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

function fill(store: FrontierStore): void {
  for (let start = 0; start < QUEUED; start += 5_000) {
    store.tx(() => {
      for (let i = start; i < Math.min(QUEUED, start + 5_000); i++) {
        store.enqueue({ host: host(i), partition: partition(i), priority: 2, url: url(i, "q"), depth: 1, hops: 0, kind: "page" });
      }
    });
  }
  for (let start = 0; start < FETCHED; start += 5_000) {
    store.tx(() => {
      for (let i = start; i < Math.min(FETCHED, start + 5_000); i++) {
        store.setUrlState({ host: host(i), partition: partition(i), url: url(i, "f"), depth: 1 }, "fetched");
      }
    });
  }
}

function lookups(store: FrontierStore): number {
  const t = performance.now();
  let found = 0;
  for (let i = 0; i < LOOKUPS; i++) if (store.isKnown(partition(i), host(i), url(i, "new"))) found++;
  if (found !== 0) throw new Error("a new URL was found in the store");
  return LOOKUPS / ((performance.now() - t) / 1000);
}

function admissions(store: FrontierStore, tag: string): number {
  const t = performance.now();
  for (let start = 0; start < ADMITS; start += TX) {
    store.tx(() => {
      for (let i = start; i < Math.min(ADMITS, start + TX); i++) {
        store.enqueue({ host: host(i), partition: partition(i), priority: 2, url: url(i, tag), depth: 1, hops: 0, kind: "page" });
      }
    });
  }
  return ADMITS / ((performance.now() - t) / 1000);
}

const dir = mkdtempSync(join(tmpdir(), "seen-confirm-bench-"));
try {
  const path = join(dir, "frontier.sqlite");
  const store = FrontierStore.open(path);
  fill(store);
  const plainLookups = lookups(store);
  const plainAdmits = admissions(store, "a1");
  store.close();

  // The index confirming every "not seen" would need (not in the schema): (partition, url) on the queue.
  const { Database } = await import("bun:sqlite");
  const db = new Database(path);
  db.exec("CREATE INDEX bench_queue_url ON queue (partition, url)");
  db.close();
  const indexed = FrontierStore.open(path);
  const indexedLookups = lookups(indexed);
  const indexedAdmits = admissions(indexed, "a2");
  indexed.close();

  console.log(
    `frontier store: ${fmt(QUEUED)} queued URLs on ${fmt(HOSTS)} hosts (~${fmt(QUEUED / HOSTS)} per host), ${fmt(FETCHED)} URL states\n` +
      `  confirm a new URL (isKnown), schema as is    ${fmt(plainLookups)} lookups/s  (${(1e6 / plainLookups).toFixed(1)} us each: a scan of the host's queue)\n` +
      `  confirm a new URL, with a (partition, url) index  ${fmt(indexedLookups)} lookups/s  (${(1e6 / indexedLookups).toFixed(1)} us each)\n` +
      `  admit (enqueue, ${TX} per transaction), schema as is  ${fmt(plainAdmits)} URLs/s\n` +
      `  admit, with the index                         ${fmt(indexedAdmits)} URLs/s  (${((1 - indexedAdmits / plainAdmits) * 100).toFixed(0)} % slower)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
