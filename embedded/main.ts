/**
 * `crawl`: the embedded crawler, every role in one process with no services. This is its composition
 * root: it reads the configuration (config.ts: seed URLs, flags over `CRAWL_*` env vars over defaults),
 * opens the state under --out (frontier store, seen-set snapshot, content index, WARC files), with
 * --warc-upload ships finished WARC files to object storage, builds the same frontier and fetch worker the
 * cluster runs, with in-process adapters, and runs the crawl loop until it is done, reaches a limit, or is
 * interrupted; with --http it also serves the dashboard, /metrics and /healthz (http.ts). Start, stop and
 * exit are the process kit's (kit/main `runMain`): the first Ctrl-C stops the
 * loop cleanly, a second exits at once. It resumes from --out.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { isDiskFull, isStoreDamage, StoreDamagedError } from "../core/errors/index.ts";
import { damagedStoreMessage } from "./damaged-store.ts";
import { join, resolve } from "node:path";
import { applyScopeFile, ConfigError, formatDuration } from "../core/config/index.ts";
import type { DiscoveredUrl } from "../core/model/index.ts";
import type { AddressGate, Log, TaskRunner } from "../core/ports/index.ts";
import { AddressBoard, preciseNow, type PolitenessKeyMode } from "../core/politeness/index.ts";
import { politenessKeyMismatch } from "../core/cluster/index.ts";
import { hostKeyOf, normalizeUrl } from "../core/url/index.ts";
import { AddressPolicy, classifyIp, describeRefusal, formatHostPort, parseIp, type HostPort } from "../core/net/index.ts";
import { TokenSet } from "../core/auth/index.ts";
import { checkDiskRoom, FileReadError, lockDir } from "../kit/fs/index.ts";
import { errorFields, errorInfo } from "../kit/log/index.ts";
import { runMain, StartupError, startStep, type ProcessContext, type ProcessSpec } from "../kit/main/index.ts";
import { hostRuntime } from "../kit/runtime.ts";
import {
  addressGateLimits,
  CountingAddressGate,
  LocalTrouble,
  ServerExplainer,
  openFetchPath,
  startWarcUpload,
  type WarcUploadStarted,
} from "../engine/fetch/index.ts";
import { s3StoreFor } from "../adapters/s3/index.ts";
import { Counters } from "../core/stats/index.ts";
import { Frontier, FrontierStore } from "../engine/frontier/index.ts";
import { renderingWanted } from "../core/render/index.ts";
import { LocalBloomSeenSet, MemoryAddressGate } from "../adapters/memory/index.ts";
import { SqliteContentIndex, SqlitePageFeed } from "../adapters/sqlite/index.ts";
import { pageRecordOf } from "../core/feed/index.ts";
import type { PageFeed } from "../core/ports/index.ts";
import { CrawlJobs } from "./jobs.ts";
import { LocalPageBudget } from "./page-budget.ts";
import { crawlUsage, resolveCrawlConfig, type CrawlConfig } from "./config.ts";
import { SeedFeed } from "./seed-feed.ts";
import { CrawlLoop } from "./crawl-loop.ts";
import { Progress, summary } from "./progress.ts";
import { ThreadedFetchRunner } from "./fetch-thread/threaded-runner.ts";
import { CRAWL_NODE, startCrawlHttp } from "./http.ts";
import { crawlStatsProcess } from "./stats.ts";
import { terminalStatus, type TerminalStatus } from "./terminal-status.ts";

const PARTITIONS = 256;
const SEEN_SAVE_INTERVAL_MS = 30_000;
const STOP_GRACE_MS = 2_000;
/** Room a page's WARC records need, at least: what a disk probe writes before the crawl goes on. */

/** `crawl`, given the terminal status line it draws its progress on. */
export function crawlProcess(status: TerminalStatus | undefined): ProcessSpec<CrawlConfig> {
  return {
    name: "crawl",
    usage: crawlUsage,
    configure: resolveCrawlConfig,
    logFormat: (config) => config.logFormat,
    stopNote: () => `fetches in flight get ${formatDuration(STOP_GRACE_MS)} to finish`,
    abruptStopCost: "queued URLs are safe, in-flight pages will be refetched",
    run: (ctx) => crawl(ctx, ctx.config.quiet ? undefined : status),
  };
}

async function crawl(ctx: ProcessContext<CrawlConfig>, status: TerminalStatus | undefined): Promise<number> {
  const { log } = ctx;
  // --scope-file's lists join the policy's before anything uses it (a bad file is a usage error, exit 2).
  const args = { ...ctx.config, policy: applyScopeFile(ctx.config.policy, (path) => readFileSync(path, "utf8")) };
  if (renderingWanted(args.policy)) {
    // The renderer is loaded only when wanted: playwright-core alone adds about 100 MB of RSS to each thread
    // that imports it (measured), which a crawl that never renders must not pay.
    const { checkChromium, ChromiumMissingError } = await import("../engine/render/index.ts");
    try {
      checkChromium(args.policy);
    } catch (error) {
      if (error instanceof ChromiumMissingError) throw new ConfigError(error.message);
      throw error;
    }
  }
  const out = resolve(args.out);
  mkdirSync(join(out, "warc"), { recursive: true });
  const lock = lockDir(out);
  if (!lock.ok) throw new StartupError(`${out} is in use by another crawl (pid ${lock.holder}); stop it first`);
  ctx.onClose("output dir lock", () => lock.release());
  // Before the writers open the WARC directory; closed after them and the store, before the lock.
  const upload = await startUpload(ctx, out);
  // The frontier's counters, shared with the address gate (fetch.address.passes) and its per-address board.
  const counters = new Counters();
  const addresses = new AddressBoard();
  // The fetch threads take about half a second to start (each one loads the whole fetch path): they start
  // first, and this thread opens the store and the seen-set and admits the first seeds meanwhile, so the
  // first request goes out that much sooner. Awaited before the crawl loop starts.
  const runnerStarting = startStep(
    "start the fetch path",
    `check that ${out} can be written and that --proxy, if given, is an http(s) proxy`,
    () => refuseDamaged(out, () => openRunner(args, out, upload, { board: addresses, counters })),
  );
  // Until its close step is registered below (after the store's), a failure elsewhere must not leave its
  // threads running (they would keep the process alive), nor its own failure go unhandled before it is awaited.
  let runnerAdopted = false;
  runnerStarting.catch(() => {});
  ctx.onClose("fetch path (starting)", async () => {
    if (runnerAdopted) return;
    const started = await runnerStarting.catch(() => undefined);
    await started?.close();
  });
  // The politeness clock: results from the fetch threads are moved onto it, and the frontier decides by it.
  const now = preciseNow;
  const store = refuseDamaged(out, () =>
    FrontierStore.open(join(out, "frontier.sqlite"), { recentLog: true, backgroundCheckpoints: true }),
  );
  ctx.onClose("store", () => untilDiskFull(log, out, () => store.close()));
  // Hosts are placed in the store by the politeness key: a store that holds work was built with its key
  // (`host` when it predates the setting), and resuming it with another would strand its queue.
  const builtWithKey = store.getMeta("politeness-key") ?? (store.totalQueued() > 0 || store.nextDueAt() !== undefined ? "host" : undefined);
  const keyRefused =
    builtWithKey !== undefined &&
    politenessKeyMismatch(
      builtWithKey as PolitenessKeyMode,
      args.policy.politenessKey,
      `the key the crawl in ${out} was built with`,
      "into another --out",
    );
  if (keyRefused) throw new ConfigError(keyRefused);
  store.tx(() => store.setMeta("politeness-key", args.policy.politenessKey));
  const seen = LocalBloomSeenSet.openReplaying(join(out, "seen.bloom"), store);
  // Registered after the store, so it runs before the store closes: the snapshot reads the store.
  ctx.onClose("seen-set snapshot", () => untilDiskFull(log, out, () => seen.checkpoint(store)));
  // Where the fetch path's close always stood: after the store's, so it closes before the store.
  runnerAdopted = true;
  ctx.onClose("fetch path", async () => (await runnerStarting.catch(() => undefined))?.close());
  // With --http, every page result goes to the feed of fetched pages (pages.sqlite), before it is applied,
  // as a frontier node publishes to CRAWL_PAGES: GET /v1/jobs/{id}/pages reads it, now and after a restart.
  const pageFeed = args.http ? openPageFeed(ctx, out) : undefined;
  // Page budgets of jobs with maxPages (page-budget.ts): a job's page results never pass maxPages.
  const pageBudget = new LocalPageBudget(store);
  let taskCounter = 0;
  const runId = Math.floor(now()).toString(36);
  const frontier = new Frontier({
    store,
    seen,
    counters,
    policy: args.policy,
    partitions: PARTITIONS,
    maxQueued: args.maxQueued,
    confirmAllSeen: args.confirmAllSeen,
    now,
    newTaskId: () => `${runId}-${(taskCounter++).toString(36)}`,
    onDisk: (full, error) =>
      full
        ? log.warn(
            `the disk of ${out} is full: fetching is paused, nothing fetched is lost; it goes on by itself once there is room`,
            errorFields(error),
          )
        : log.info(`there is room on the disk of ${out} again: fetching goes on`),
    diskProbe: () => probeDisk(out, store),
    budget: pageBudget.frontierOption,
    // Deduplicated by the task id, as in the cluster.
    feed: pageFeed
      ? (items) =>
          pageFeed.publish(items.map(({ result, job }) => ({ id: result.taskId, record: pageRecordOf(result, job, CRAWL_NODE.region) })))
      : undefined,
  });
  // Crawl jobs (jobs.sqlite): every stored job's state reaches the frontier before anything is handed out.
  let newSeeds = () => {};
  const jobs = refuseDamaged(out, () =>
    CrawlJobs.open({
      out,
      frontier,
      policy: args.policy,
      now: () => Date.now(),
      log: log.child("jobs"),
      onSeeds: () => newSeeds(),
      budget: pageBudget.budget,
    }),
  );
  ctx.onClose("jobs", () => jobs.close());
  // Seeds are admitted in batches while the crawl runs (a seeds file of millions of lines is read as a
  // stream); the crawl starts once the first batch is in, and does not end while seeds are still coming.
  // --job: the command line's seeds carry that job's number (the job is created when new).
  const seedJob = args.job === undefined ? 0 : await jobs.seedJob(args.job);
  const feed = new SeedFeed({
    urls: args.seeds,
    file: args.seedsFile,
    feedsFile: args.feedsFile,
    policy: args.policy,
    log,
    add: (batch) => frontier.addSeeds(seedJob === 0 ? batch : batch.map((u) => ({ ...u, job: seedJob }))),
    onBatch: () => newSeeds(),
  });
  const feeding = feed.run().catch((error: unknown) => {
    throw error instanceof FileReadError ? new ConfigError(`cannot read seeds file ${args.seedsFile}: ${error.reason}`) : error;
  });
  await Promise.race([feed.firstBatch, feeding]);
  if (feed.done) await feeding;
  const runner = await runnerStarting;
  const start = frontier.snapshot(true);
  if (feed.done && start.queued === 0 && start.scheduled === 0 && start.sitemapsPending === 0) {
    if (feed.totals.offered === 0)
      throw new ConfigError(`nothing to crawl: give seed URLs (arguments or --seeds FILE); ${out} holds no queued URLs`);
    // Every seed refused by the address policy is a usage error, like giving none (each was logged above).
    if (feed.totals.refused === feed.totals.offered) throw new ConfigError("nothing to crawl: every seed was refused (see above)");
    log.info(`nothing to crawl: every seed was already fetched into ${out}`);
    return 0;
  }
  const startedAt = now();
  const loop = new CrawlLoop({
    frontier,
    worker: runner,
    maxInFlight: args.maxInFlight,
    maxPages: args.maxPages,
    deadline: args.maxDurationMs === undefined ? undefined : startedAt + args.maxDurationMs,
    stopGraceMs: STOP_GRACE_MS,
    continuous: args.continuous,
    horizonMs: args.waitHorizonMs,
    now,
    busy: () => !feed.done,
    afterResult: (task) => jobs.afterResult(task),
    givenBack: (task) => pageBudget.givenBack(task),
    trouble: new LocalTrouble({ log, now, counters: frontier.counters }),
    onError: (error, task) =>
      isStoreDamage(error)
        ? log.error(damagedStoreMessage(error as Error, out))
        : log.error(`internal error on ${task.url}`, errorFields(error, { url: task.url })),
  });
  newSeeds = () => loop.poke();
  // A seeds file that fails to be read part-way (a disk error) ends the crawl with an error: what was
  // admitted stays queued, and the same command admits the rest (the seen-set skips what is known).
  feeding.catch((error: unknown) => {
    log.error(errorInfo(error).message, { seedsFile: args.seedsFile, linesRead: feed.totals.lines });
    loop.stop("error");
  });
  if (args.http) {
    // `url explain` says which server a URL is capped under, as the fetch threads find it, and its state.
    const proxied = args.proxyUrl !== undefined;
    const servers = new ServerExplainer({ policy: args.policy, proxied: () => proxied, gate: runner.addressGate, board: addresses });
    ctx.onClose("server explainer", () => servers.close());
    await startHttp(ctx, args.http, { frontier, jobs, feed: pageFeed! }, loop, startedAt, { board: addresses, servers });
  }
  if (ctx.stopSignal.aborted) loop.stop("interrupted");
  ctx.stopSignal.addEventListener("abort", () => loop.stop("interrupted"));
  const progress = new Progress(
    { pages: () => loop.pages, frontier: () => frontier.snapshot(), inFlight: () => loop.inFlight, pending: () => frontier.pending() },
    status,
    log,
    now,
  );
  if (!args.quiet) {
    const added = feed.totals.added;
    const more = feed.done ? "" : " (more seeds are being read)";
    log.info(`${added} new seed(s)${more}, ${start.queued} URLs queued, output in ${out}`, { newSeeds: added, queued: start.queued, out });
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
    // A clean stop gives every unit held back to the pools, as a frontier node does.
    await frontier.giveBackBudgets();
  } catch (error) {
    if (!isStoreDamage(error)) throw error;
    log.error(damagedStoreMessage(error as Error, out));
    return 1;
  } finally {
    clearInterval(saver);
    progress.stop();
  }
  const final = frontier.snapshot(true);
  ctx.out(
    summary({
      reason,
      pages: loop.pages,
      elapsedMs: now() - startedAt,
      frontier: final,
      out,
      resumeCommand: resumeCommand(ctx.runtime.argv()),
      pending: frontier.pending(),
      now: now(),
    }),
  );
  return reason === "error" ? 1 : 0;
}

/**
 * With --http: the dashboard, /metrics and /healthz (http.ts), until the crawl stops. Its close step is
 * registered last, so it closes first: nobody is shown a crawl that is closing its store.
 */
async function startHttp(
  ctx: ProcessContext<CrawlConfig>,
  listen: HostPort,
  parts: { frontier: Frontier; jobs: CrawlJobs; feed: PageFeed },
  loop: CrawlLoop,
  startedAt: number,
  addresses: { board: AddressBoard; servers: ServerExplainer },
) {
  const { frontier } = parts;
  const { config: args, log } = ctx;
  const address = formatHostPort(listen.host, listen.port);
  let stopping = false;
  const http = await startStep(`serve the dashboard and /metrics on ${address}`, "give a free address with --http", () =>
    startCrawlHttp({
      listen,
      adminTokens: new TokenSet(args.adminTokens),
      metricsTokens: new TokenSet(args.metricsTokens),
      frontier,
      jobs: parts.jobs.service,
      feed: parts.feed,
      partitions: PARTITIONS,
      running: () => !stopping && !ctx.stopSignal.aborted,
      startedAt,
      now: () => Date.now(),
      log: log.child("http"),
      renderPool: renderingWanted(args.policy) ? args.policy.renderPool * Math.max(1, args.fetchThreads) : 0,
      addresses: addresses.board,
      servers: addresses.servers,
    }),
  );
  ctx.onClose("http", async () => {
    stopping = true;
    await http.close();
  });
  const ip = parseIp(listen.host);
  const loopback = listen.host === "localhost" || (ip !== undefined && classifyIp(ip) === "loopback");
  if (!loopback && args.adminTokens.length === 0)
    log.warn(`--http listens on ${address}, beyond this machine, with no --admin-token: anyone who reaches it can read the dashboard`);
  log.info(`dashboard at ${http.server.url}/dashboard, metrics at ${http.server.url}/metrics`, {
    dashboard: `${http.server.url}/dashboard`,
    metrics: `${http.server.url}/metrics`,
    inFlight: loop.inFlight,
  });
}

/** The feed of fetched pages under `out`, kept by --feed-max-age and --feed-max-bytes; closed after the frontier's last results. */
function openPageFeed(ctx: ProcessContext<CrawlConfig>, out: string): SqlitePageFeed {
  const feed = refuseDamaged(out, () =>
    SqlitePageFeed.open(join(out, "pages.sqlite"), {
      maxAgeMs: ctx.config.feedMaxAgeMs,
      maxBytes: ctx.config.feedMaxBytes,
      now: () => Date.now(),
    }),
  );
  ctx.onClose("page feed", () => untilDiskFull(ctx.log, out, () => void feed.close()));
  return feed;
}

/**
 * With --warc-upload: the upload of finished WARC files, started before the WARC writers open their
 * directory (it recovers what a kill left there). Its close step is registered right after the lock's, so
 * it runs after the fetch path (the writers' last files are shipped too), the seen-set snapshot and the
 * store, and before the lock is released; what the drain time leaves is uploaded by the next run.
 */
async function startUpload(ctx: ProcessContext<CrawlConfig>, out: string): Promise<WarcUploadStarted | undefined> {
  const target = ctx.config.warc.upload;
  if (!target) return undefined;
  const store = s3StoreFor(target);
  const upload = await startStep(
    `start uploading finished WARC files to ${store.location}`,
    `check that ${join(out, "warc")} can be read and written`,
    () => startWarcUpload({ warcDir: join(out, "warc"), store, counters: new Counters(), log: ctx.log.child("warc-upload") }),
  );
  const drainMs = ctx.config.warc.uploadDrainMs;
  ctx.onClose("warc upload", async () => {
    const left = await upload.uploader.close(drainMs);
    if (left.filesLeft > 0)
      ctx.log.warn(`${left.filesLeft} finished WARC file(s) not uploaded yet; the next run with --out ${out} uploads them`, left);
  });
  return upload;
}

/** Whether the disk of `out` has room again (kit/fs checkDiskRoom), then a small store write. */
function probeDisk(out: string, store: FrontierStore): void {
  checkDiskRoom(out);
  store.tx(() => store.setMeta("disk-probe", String(Date.now())));
}

/** Runs `open`; a store found damaged stops the start with what `crawl` says about it (no stack). */
function refuseDamaged<T>(out: string, open: () => T): T {
  const refuse = (error: unknown): never => {
    throw error instanceof StoreDamagedError ? new StartupError(damagedStoreMessage(error, out)) : error;
  };
  try {
    const opened = open();
    return (opened instanceof Promise ? opened.catch(refuse) : opened) as T;
  } catch (error) {
    return refuse(error);
  }
}

/**
 * A close step that a full disk cannot fail: what was committed is in the store's WAL and the next run
 * reads it, so the stop says so and goes on closing.
 */
function untilDiskFull(log: Log, out: string, close: () => void): void {
  try {
    close();
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    log.warn(`could not finish writing ${out} (the disk is full); the next run with --out ${out} resumes from it`, errorFields(error));
  }
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
  args: CrawlConfig,
  out: string,
  upload: WarcUploadStarted | undefined,
  addresses: { board: AddressBoard; counters: Counters },
): Promise<TaskRunner & { close(): Promise<void>; addressGate: AddressGate }> {
  const content = SqliteContentIndex.open(join(out, "content.sqlite"));
  // One cap per server address for every fetch thread (they ask it by message), counted per address here.
  const addressGate = new CountingAddressGate(new MemoryAddressGate(addressGateLimits(args.policy)), addresses.board, {
    counters: addresses.counters,
    prefix: "fetch",
  });
  const init = {
    policy: args.policy,
    warcDir: join(out, "warc"),
    warcPrefix: "crawl",
    proxyUrl: args.proxyUrl,
    maxConcurrentRequests: args.maxInFlight,
    warc: {
      maxFileBytes: args.warc.rollBytes,
      maxFileAgeMs: args.warc.rollAgeMs,
      wet: args.warc.text === "wet",
      finishedDir: upload?.finishedDir,
      objectLocation: upload?.objectLocation,
    },
    ...(renderingWanted(args.policy) ? { render: args.policy } : {}),
  };
  if (args.fetchThreads > 0) {
    const threads = await ThreadedFetchRunner.start(init, content, args.fetchThreads, addressGate);
    return {
      run: (task, signal) => threads.run(task, signal),
      addressGate,
      async close() {
        await threads.close();
        addressGate.close();
        await content.close();
      },
    };
  }
  const renderer = init.render ? (await import("../engine/render/index.ts")).chromiumRenderer(init.render) : undefined;
  const path = await openFetchPath({ ...init, content, addressGate, ...(renderer ? { renderer } : {}) });
  return {
    run: (task, signal) => path.worker.run(task, signal),
    addressGate,
    async close() {
      await path.close();
      addressGate.close();
      await content.close();
    },
  };
}

if (import.meta.main) {
  const host = hostRuntime();
  if (host.argv()[0] === "stats") {
    await runMain(crawlStatsProcess, { ...host, argv: () => host.argv().slice(1) });
  } else {
    const status = host.stderrIsTerminal() ? terminalStatus(host) : undefined;
    await runMain(crawlProcess(status), status?.runtime ?? host);
  }
}
