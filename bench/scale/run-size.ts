/**
 * One size of the scale bench, in its own process: the real frontier as `crawl` builds it (embedded/main.ts:
 * a FrontierStore with the admission log in a scratch directory, the LocalBloomSeenSet snapshotted beside
 * it, 256 partitions, the default policy) on its own clock, fed by the synthetic web (synthetic-web.ts),
 * through three phases each bounded by `maxSeconds`:
 *
 *   1. seed      one home page per host, admitted 10,000 to a call (as `crawl`'s seed feed does);
 *   2. admit     the links of pages, page 0 of every host, then page 1 of every host, ..., `batch` pages
 *                to an `admit` call, until `queued` URLs wait (the seen check, the store writes);
 *   3. dispatch  `nextTasks(batch)`, every task answered at once, the results and their links applied
 *                by one `completeMany` (as the crawl loop's group commit does), until `dispatchTasks`.
 *                When no host is ready the clock jumps to `nextWakeAt()`: politeness gaps pass at once.
 *
 * Only the frontier's calls are timed; building the links and answering tasks are not. As in `crawl`, the
 * seen-set is snapshotted every 30 s (wall time), outside the timed calls, and counted apart. Memory is
 * sampled after each phase, the disk after the fill and at the end; the per-host breakdown (memory.ts)
 * runs last, since it takes the frontier apart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult } from "../../core/model/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier, FrontierStore } from "../../engine/frontier/index.ts";
import { files, layout, type DiskFiles, type DiskLayout } from "./disk.ts";
import { breakdown, internals, sample, type Internals, type MemorySample, type Release } from "./memory.ts";
import { answer, depthOf, linksOf, seedOf, type FetchTally, type WebShape } from "./synthetic-web.ts";

/** As embedded/main.ts. */
const PARTITIONS = 256;
const SEEN_SAVE_INTERVAL_MS = 30_000;
/** As embedded/seed-feed.ts. */
const SEED_BATCH = 10_000;
const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

export interface SizeOptions extends WebShape {
  queued: number;
  batch: number;
  maxSeconds: number;
  dispatchTasks: number;
  /** The frontier's size limit, as `crawl --max-queued` (0: none, the crawl's default). */
  maxQueued: number;
  /** Where the scratch directory is made. */
  dir: string;
  keep: boolean;
  /** SQLite's page cache in MiB, set on the store's connection after it opens (the store's own is 128); absent, the store's. */
  cacheMib?: number;
  /** A full collection (`Bun.gc(true)`) after every this many frontier calls, outside the timed calls; absent, none. */
  gcEvery?: number;
}

/** Time spent inside one kind of frontier call. */
export interface Timing {
  calls: number;
  seconds: number;
  /** CPU time of the process (every thread: GC helpers too) during the calls: what other load on the box moves least. */
  cpuSeconds: number;
  /** The slowest single call: an O(n) step shows here first. */
  maxCallMs: number;
  /** Which call it was (1 is the first). */
  maxCallAt: number;
}

export interface SizeResult {
  options: SizeOptions;
  seed: { hosts: number; seconds: number; timing: Timing; stoppedByTime: boolean };
  admit: { links: number; added: number; pages: number; timing: Timing; stoppedByTime: boolean };
  dispatch: {
    tasks: FetchTally;
    added: number;
    next: Timing;
    complete: Timing;
    clockJumps: number;
    virtualSeconds: number;
    stoppedByTime: boolean;
    /** Seconds in the frontier's calls by task kind (each batch's time shared by its tasks). */
    secondsByKind: { robots: number; sitemap: number; page: number };
  };
  checkpoints: Timing;
  /** The collections `gcEvery` asked for (none without it). */
  collections: Timing;
  queuedAfterSeed: number;
  queuedAfterFill: number;
  queuedAtEnd: number;
  memory: MemorySample[];
  internals: Record<string, Internals>;
  diskAfterFill: DiskFiles;
  diskAtEnd: DiskFiles;
  diskLayout: DiskLayout;
  seenCount: number;
  seenFalsePositiveRate: number;
  /** Live bytes through mimalloc that SQLite's `PRAGMA shrink_memory` gave back after dispatch: the page cache. */
  sqliteCacheBytes: number;
  releases: Release[];
  counters: Record<string, number>;
}

function timing(): Timing {
  return { calls: 0, seconds: 0, cpuSeconds: 0, maxCallMs: 0, maxCallAt: 0 };
}

/** Runs `fn` and adds its wall and CPU time to `t`. */
async function timed<T>(t: Timing, fn: () => T | Promise<T>): Promise<T> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const out = await fn();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  t.calls++;
  t.seconds += ms / 1000;
  t.cpuSeconds += (used.user + used.system) / 1e6;
  if (ms > t.maxCallMs) {
    t.maxCallMs = ms;
    t.maxCallAt = t.calls;
  }
  return out;
}

const log = (line: string) => process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

export async function runSize(o: SizeOptions): Promise<SizeResult> {
  const memory: MemorySample[] = [sample("start")];
  const dir = mkdtempSync(join(o.dir, `scale-${o.hosts}-`));
  const store = FrontierStore.open(join(dir, "frontier.sqlite"), { recentLog: true, backgroundCheckpoints: true });
  if (o.cacheMib !== undefined) connectionOf(store).exec(`PRAGMA cache_size = -${Math.round(o.cacheMib * 1024)}`);
  const seen = LocalBloomSeenSet.openReplaying(join(dir, "seen.bloom"), store);
  const clock = { now: T0 };
  let taskCounter = 0;
  const frontier = new Frontier({
    store,
    seen,
    policy: DEFAULT_POLICY,
    partitions: PARTITIONS,
    maxQueued: o.maxQueued,
    now: () => clock.now,
    newTaskId: () => `scale-${(taskCounter++).toString(36)}`,
  });
  memory.push(sample("frontier built"));
  const snapshots: Record<string, Internals> = {};
  const checkpoints = timing();
  let lastSave = performance.now();
  // The seen-set snapshot `crawl` takes every 30 s: outside the timed calls, counted apart.
  const collections = timing();
  let callsSinceGc = 0;
  const maybeCheckpoint = async () => {
    if (o.gcEvery !== undefined && ++callsSinceGc >= o.gcEvery) {
      callsSinceGc = 0;
      await timed(collections, () => Bun.gc(true));
    }
    if (performance.now() - lastSave < SEEN_SAVE_INTERVAL_MS) return;
    await timed(checkpoints, () => seen.checkpoint(store));
    lastSave = performance.now();
  };

  // 1. seed
  const seedTiming = timing();
  const seedStart = performance.now();
  let h = 0;
  for (; h < o.hosts && (performance.now() - seedStart) / 1000 < o.maxSeconds; ) {
    const batch: DiscoveredUrl[] = [];
    for (const end = Math.min(o.hosts, h + SEED_BATCH); h < end; h++) batch.push(seedOf(o, h));
    await timed(seedTiming, () => frontier.addSeeds(batch));
    await maybeCheckpoint();
  }
  const seed = { hosts: h, seconds: (performance.now() - seedStart) / 1000, timing: seedTiming, stoppedByTime: h < o.hosts };
  const queuedAfterSeed = frontier.queued;
  log(`seeded ${h} hosts in ${seedTiming.seconds.toFixed(1)} s of admission`);
  memory.push(sample("seeded"));
  snapshots.seeded = internals(frontier);

  // 2. admit
  const admitTiming = timing();
  let links = 0;
  let added = 0;
  let pages = 0;
  const admitStart = performance.now();
  let stoppedByTime = false;
  fill: for (let wave = 0; ; wave++) {
    const depth = depthOf(o.fresh, wave);
    for (let from = 0; from < seed.hosts; from += o.batch) {
      if (frontier.queued >= o.queued) break fill;
      if ((performance.now() - admitStart) / 1000 >= o.maxSeconds) {
        stoppedByTime = true;
        break fill;
      }
      const batch: DiscoveredUrl[] = [];
      for (let k = from; k < Math.min(seed.hosts, from + o.batch); k++) linksOf(o, k, wave, depth, batch);
      pages += Math.min(seed.hosts, from + o.batch) - from;
      links += batch.length;
      const delivered = asDelivered(batch);
      added += await timed(admitTiming, () => frontier.admit(delivered));
      await maybeCheckpoint();
    }
    log(`admission wave ${wave}: ${frontier.queued} queued`);
  }
  const admit = { links, added, pages, timing: admitTiming, stoppedByTime };
  const queuedAfterFill = frontier.queued;
  log(`admitted ${added} of ${links} links in ${admitTiming.seconds.toFixed(1)} s: ${queuedAfterFill} queued`);
  await timed(checkpoints, () => seen.checkpoint(store));
  memory.push(sample("filled"));
  snapshots.filled = internals(frontier);
  const diskAfterFill = files(dir);

  // 3. dispatch
  const dispatch = await runDispatch(o, frontier, clock, maybeCheckpoint);
  log(`dispatched ${dispatch.tasks.robots + dispatch.tasks.sitemap + dispatch.tasks.page} tasks`);
  await timed(checkpoints, () => seen.checkpoint(store));
  memory.push(sample("dispatched"));
  snapshots.dispatched = internals(frontier);
  const diskAtEnd = files(dir);
  const queuedAtEnd = frontier.queued;
  const counters = frontier.counters.toJSON();
  const seenCount = seen.count;
  const seenFalsePositiveRate = seen.estimatedFalsePositiveRate();

  const sqliteCacheBytes = pageCacheBytes(store);
  const releases = breakdown(frontier, (partition, host) => store.head(partition, host));
  store.close();
  const diskLayout = layout(dir);
  if (!o.keep) rmSync(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
  return {
    options: o,
    seed,
    admit,
    dispatch,
    checkpoints,
    collections,
    queuedAfterSeed,
    queuedAfterFill,
    queuedAtEnd,
    memory,
    internals: snapshots,
    diskAfterFill,
    diskAtEnd,
    diskLayout,
    seenCount,
    seenFalsePositiveRate,
    sqliteCacheBytes,
    releases,
    counters,
  };
}

/** The store's SQLite connection: the bench reaches it to size and measure the page cache (memory.ts may reach internals too). */
function connectionOf(store: FrontierStore): { exec(sql: string): void } {
  return (store as unknown as { db: { exec(sql: string): void } }).db;
}

/**
 * What SQLite's page cache holds, measured: the live bytes through mimalloc (where Bun's SQLite allocates)
 * before and after `PRAGMA shrink_memory`, which frees every page the connection caches. The cache then
 * fills again from the file as pages are read; the bench measures nothing after it but the breakdown.
 */
function pageCacheBytes(store: FrontierStore): number {
  const before = sample("before shrink_memory");
  connectionOf(store).exec("PRAGMA shrink_memory");
  const after = sample("after shrink_memory");
  return before.nativeLiveBytes < 0 ? -1 : before.nativeLiveBytes - after.nativeLiveBytes;
}

/**
 * What the synthetic web made, as the crawl's frontier receives it: a structured clone, as a fetch thread's
 * results come by postMessage (`crawl` runs the fetch path on 2 threads by default) and a cluster's by a
 * decoded message. The synthetic web builds its URLs with template literals, which JSC keeps as ropes; the
 * first hash of one (a Set or Map lookup in screening) flattened it inside the timed call, about 0.3 µs a
 * URL that no real crawl pays there (bench/README.md, "Dispatch: checkpoints on their own thread, fewer reads").
 */
function asDelivered<T>(made: T): T {
  return structuredClone(made);
}

async function runDispatch(o: SizeOptions, frontier: Frontier, clock: { now: number }, maybeCheckpoint: () => Promise<void>) {
  const tasks: FetchTally = { robots: 0, sitemap: 0, page: 0, other: 0, links: 0 };
  const next = timing();
  const complete = timing();
  const secondsByKind = { robots: 0, sitemap: 0, page: 0 };
  const addedBefore = frontier.counters.get("frontier.admitted");
  const startedAt = clock.now;
  const start = performance.now();
  let clockJumps = 0;
  let done = 0;
  let stoppedByTime = false;
  let lastLog = start;
  while (done < o.dispatchTasks) {
    if ((performance.now() - start) / 1000 >= o.maxSeconds) {
      stoppedByTime = true;
      break;
    }
    const nextBefore = next.seconds;
    const handed = await timed(next, () => frontier.nextTasks(Math.min(o.batch, o.dispatchTasks - done)));
    if (handed.length === 0) {
      // Nothing ready: the driver's clock jumps to the next host's time, as the crawl loop would sleep.
      const wake = frontier.nextWakeAt();
      if (wake === undefined) break;
      clock.now = wake > clock.now ? wake : clock.now + 1;
      clockJumps++;
      continue;
    }
    const before = { ...tasks };
    const items: Array<{ result: FetchResult; links: readonly DiscoveredUrl[] }> = [];
    for (const task of handed) items.push(answer(o, task, clock.now, tasks));
    const delivered = asDelivered(items);
    const completeBefore = complete.seconds;
    await timed(complete, () => frontier.completeMany(delivered));
    done += handed.length;
    // The batch's time (both calls), shared by its tasks' kinds.
    const spent = next.seconds - nextBefore + complete.seconds - completeBefore;
    secondsByKind.robots += (spent * (tasks.robots - before.robots)) / handed.length;
    secondsByKind.sitemap += (spent * (tasks.sitemap - before.sitemap)) / handed.length;
    secondsByKind.page += (spent * (tasks.page - before.page)) / handed.length;
    await maybeCheckpoint();
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`dispatch: ${done} tasks (robots ${tasks.robots}, sitemap ${tasks.sitemap}, page ${tasks.page}), ${frontier.queued} queued`);
    }
  }
  return {
    tasks,
    added: frontier.counters.get("frontier.admitted") - addedBefore,
    next,
    complete,
    clockJumps,
    virtualSeconds: (clock.now - startedAt) / 1000,
    stoppedByTime,
    secondsByKind,
  };
}
