/**
 * `crawl`: the embedded crawler, every role in one process with no services. This is its composition
 * root: it reads the arguments, opens the state under --out (frontier store, seen-set snapshot, content
 * index, WARC files), builds the same frontier and fetch worker the cluster runs, with in-process adapters,
 * and runs the crawl loop until it is done, reaches a limit, or is interrupted. It resumes from --out.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { isDiskFull, isStoreDamage, StoreDamagedError } from "../core/errors/index.ts";
import { damagedStoreMessage } from "./damaged-store.ts";
import { join, resolve } from "node:path";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../core/url/index.ts";
import { lockDir } from "../kit/fs/index.ts";
import { openFetchPath, startWarcUpload, type WarcUploadStarted } from "../engine/fetch/index.ts";
import { s3StoreFor } from "../adapters/s3/index.ts";
import type { TaskRunner } from "../core/ports/index.ts";
import { Frontier, FrontierStore } from "../engine/frontier/index.ts";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import { textLog } from "../kit/log/index.ts";
import { Counters } from "../core/stats/index.ts";
import { CrawlArgsError, crawlUsage, parseCrawlArgs, seedLines, type CrawlArgs } from "./args.ts";
import { CrawlLoop } from "./crawl-loop.ts";
import { Progress, summary } from "./progress.ts";
import { ThreadedFetchRunner } from "./fetch-thread/threaded-runner.ts";
import { SqliteContentIndex } from "../adapters/sqlite/index.ts";
import { statsCommand } from "./stats.ts";

const PARTITIONS = 256;
const SEEN_SAVE_INTERVAL_MS = 30_000;
/** Room a page's WARC records need, at least: what a disk probe writes before the crawl goes on. */
const DISK_PROBE_BYTES = 4 * 1024 * 1024;

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(crawlUsage());
    return 0;
  }
  if (argv[0] === "stats") return statsCommand(argv.slice(1));
  let args: CrawlArgs;
  try {
    args = parseCrawlArgs(argv, env);
  } catch (error) {
    if (error instanceof CrawlArgsError) {
      process.stderr.write(`crawl: ${error.message}\n\n${crawlUsage()}`);
      return 2;
    }
    throw error;
  }
  const seeds = await readSeeds(args);
  if (seeds === undefined) return 2;
  return crawl(args, seeds, argv);
}

async function readSeeds(args: CrawlArgs): Promise<DiscoveredUrl[] | undefined> {
  const raw = [...args.seeds];
  if (args.seedsFile) {
    try {
      raw.push(...seedLines(await Bun.file(args.seedsFile).text()));
    } catch {
      process.stderr.write(`crawl: cannot read seeds file ${args.seedsFile}\n`);
      return undefined;
    }
  }
  const seeds: DiscoveredUrl[] = [];
  for (const url of raw) {
    const n = normalizeUrl(url);
    if (!n.ok) {
      process.stderr.write(`crawl: seed rejected: ${url}: ${n.reason}\n`);
      continue;
    }
    seeds.push({ url: n.url, host: hostKeyOf(n.url), depth: 0, redirectHops: 0, isSeed: true });
  }
  return seeds;
}

async function crawl(args: CrawlArgs, seeds: DiscoveredUrl[], argv: string[]): Promise<number> {
  const out = resolve(args.out);
  mkdirSync(join(out, "warc"), { recursive: true });
  const lock = lockDir(out);
  if (!lock.ok) {
    process.stderr.write(`crawl: ${out} is in use by another crawl (pid ${lock.holder}); stop it first\n`);
    return 1;
  }
  const releaseLock = lock.release;
  const now = () => Date.now();
  let store: FrontierStore;
  try {
    store = FrontierStore.open(join(out, "frontier.sqlite"), { recentLog: true });
  } catch (error) {
    releaseLock();
    if (!(error instanceof StoreDamagedError)) throw error;
    process.stderr.write(damagedStoreMessage(error, out));
    return 1;
  }
  const seen = LocalBloomSeenSet.openReplaying(join(out, "seen.bloom"), store);
  // Upload starts before the WARC writers open their directory (it recovers what a kill left there).
  const upload = args.warc.upload
    ? await startWarcUpload({
        warcDir: join(out, "warc"),
        store: s3StoreFor(args.warc.upload),
        counters: new Counters(),
        log: textLog("crawl.warc-upload"),
      })
    : undefined;
  let runner: Awaited<ReturnType<typeof openRunner>>;
  try {
    runner = await openRunner(args, out, upload);
  } catch (error) {
    store.close();
    releaseLock();
    if (!(error instanceof StoreDamagedError)) throw error;
    process.stderr.write(damagedStoreMessage(error, out));
    return 1;
  }
  let taskCounter = 0;
  const runId = now().toString(36);
  const frontier = new Frontier({
    store,
    seen,
    policy: args.policy,
    partitions: PARTITIONS,
    maxQueued: args.maxQueued,
    confirmAllSeen: args.confirmAllSeen,
    now,
    newTaskId: () => `${runId}-${(taskCounter++).toString(36)}`,
    onDisk: (full, error) =>
      process.stderr.write(
        full
          ? `\ncrawl: the disk of ${out} is full (${(error as Error)?.message ?? error}): fetching is paused, nothing fetched is lost; it goes on by itself once there is room\n`
          : `\ncrawl: there is room on the disk of ${out} again: fetching goes on\n`,
      ),
    diskProbe: () => probeDisk(out, store),
  });
  const added = await frontier.addSeeds(seeds);
  const start = frontier.snapshot(true);
  if (start.queued === 0 && start.scheduled === 0) {
    process.stderr.write(
      seeds.length === 0
        ? `crawl: nothing to crawl: give seed URLs (arguments or --seeds FILE); ${out} holds no queued URLs\n`
        : `crawl: nothing to crawl: every seed was already fetched into ${out}\n`,
    );
    await closeAll();
    return seeds.length === 0 ? 2 : 0;
  }
  const startedAt = now();
  const loop = new CrawlLoop({
    frontier,
    worker: runner,
    maxInFlight: args.maxInFlight,
    maxPages: args.maxPages,
    deadline: args.maxDurationMs === undefined ? undefined : startedAt + args.maxDurationMs,
    stopGraceMs: 2_000,
    now,
    onError: (error, task) =>
      process.stderr.write(
        isStoreDamage(error)
          ? `\n${damagedStoreMessage(error as Error, out)}`
          : `\ncrawl: internal error on ${task.url}: ${(error as Error).stack ?? error}\n`,
      ),
  });
  let signals = 0;
  const onSignal = (name: string) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`\ncrawl: ${name} again, exiting now; queued URLs are safe, in-flight pages will be refetched\n`);
      process.exit(130);
    }
    process.stderr.write(`\ncrawl: ${name}, stopping (fetches in flight get 2 s to finish)...\n`);
    loop.stop("interrupted");
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  const progress = new Progress(
    { pages: () => loop.pages, frontier: () => frontier.snapshot(), inFlight: () => loop.inFlight },
    args.quiet ? { write: () => 0, isTTY: false } : { write: (t) => process.stderr.write(t), isTTY: process.stderr.isTTY },
    now,
  );
  if (!args.quiet) {
    process.stderr.write(`crawl: ${added} new seed(s), ${start.queued} URLs queued, output in ${out}\n`);
    progress.start();
  }
  const saver = setInterval(() => {
    try {
      seen.checkpoint(store);
    } catch (error) {
      // A full disk: the snapshot is taken again next time (the store's admission log covers the gap).
      if (!isDiskFull(error)) throw error;
    }
  }, SEEN_SAVE_INTERVAL_MS);
  let reason: Awaited<ReturnType<CrawlLoop["run"]>>;
  try {
    reason = await loop.run();
  } catch (error) {
    if (!isStoreDamage(error)) throw error;
    process.stderr.write(`\n${damagedStoreMessage(error as Error, out)}`);
    clearInterval(saver);
    progress.stop();
    releaseLock();
    return 1;
  }
  clearInterval(saver);
  progress.stop();
  frontier.markCleanStop();
  const final = frontier.snapshot(true);
  await closeAll();
  process.stdout.write(
    summary({ reason, pages: loop.pages, elapsedMs: now() - startedAt, frontier: final, out, resumeCommand: resumeCommand(argv) }),
  );
  return reason === "error" ? 1 : 0;

  async function closeAll(): Promise<void> {
    try {
      seen.checkpoint(store);
      store.close();
    } catch (error) {
      // A full disk at the very end: the store's WAL keeps what was committed; the next run reads it.
      if (!isDiskFull(error)) throw error;
      process.stderr.write(`crawl: could not finish writing ${out} (the disk is full); the next run with --out ${out} resumes from it\n`);
    }
    await runner.close();
    if (upload) {
      const left = await upload.uploader.close(args.warc.uploadDrainMs);
      if (left.filesLeft > 0)
        process.stderr.write(
          `crawl: ${left.filesLeft} finished WARC file(s) not uploaded yet; the next run with --out ${out} uploads them\n`,
        );
    }
    releaseLock();
  }
}

/**
 * Whether the disk of `out` has room again: a few MiB written and removed beside the WARC files (a page's
 * records need that much, not just a store row), then a small store write.
 */
function probeDisk(out: string, store: FrontierStore): void {
  const probe = join(out, ".disk-probe");
  try {
    writeFileSync(probe, new Uint8Array(DISK_PROBE_BYTES));
  } finally {
    rmSync(probe, { force: true });
  }
  store.tx(() => store.setMeta("disk-probe", String(Date.now())));
}

function resumeCommand(argv: string[]): string {
  return `bun run crawl ${argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ")}`;
}

/**
 * The fetch path (HTTP, parse, fingerprints, WARC): on --fetch-threads other threads (default 2), so its CPU
 * cost runs beside the frontier's instead of after it; in this thread with --fetch-threads 0. The content
 * index stays in this thread, shared by all.
 */
async function openRunner(
  args: CrawlArgs,
  out: string,
  upload: WarcUploadStarted | undefined,
): Promise<TaskRunner & { close(): Promise<void> }> {
  const content = SqliteContentIndex.open(join(out, "content.sqlite"));
  const init = {
    policy: args.policy,
    warcDir: join(out, "warc"),
    warcPrefix: "crawl",
    proxyUrl: args.proxy,
    allowPrivateAddresses: args.allowPrivateAddresses,
    maxConcurrentRequests: args.maxInFlight,
    warc: { maxFileBytes: args.warc.rollBytes, maxFileAgeMs: args.warc.rollAgeMs, finishedDir: upload?.finishedDir },
  };
  if (args.fetchThreads > 0) {
    const threads = await ThreadedFetchRunner.start(init, content, args.fetchThreads);
    return {
      run: (task, signal) => threads.run(task, signal),
      async close() {
        await threads.close();
        await content.close();
      },
    };
  }
  const path = await openFetchPath({ ...init, content });
  return {
    run: (task, signal) => path.worker.run(task, signal),
    async close() {
      await path.close();
      await content.close();
    },
  };
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
