/**
 * The end-to-end harness for `crawl` (embedded/main.ts): starts the test web in this process, runs the
 * crawler as a real child process (`bun embedded/main.ts`) in a fresh temporary --out directory, and lets
 * a test wait on conditions, never on sleeps: on the test web's request log, on the child's output or on
 * its exit, each wait bounded by a timeout that names what it was waiting for. Everything a test starts
 * is registered and torn down after it (children killed, servers closed, temp directories removed), so a
 * failing test leaves nothing running.
 *
 * Also here: reading what a crawl left behind (the summary it prints, its WARC files and CDXJ index) and
 * turning the request log into the set of page URLs a crawl fetched.
 */
import { afterEach, expect } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readWarc, type WarcRecordView } from "../../../engine/fetch/index.ts";
import { SITEMAP_PROBE_PATH, startTestWeb, type RequestRecord, type TestWeb, type TestWebOptions } from "../../testweb/index.ts";
import { assertPolite, BELOW_THE_JUDGE, gapPolicyOf, KEEP_FOR_DEBUGGING, keptDir } from "../politeness.ts";

/** The repository root: the crawler runs from here, as a user's `bun run crawl` would. */
export const REPO_ROOT = resolve(import.meta.dir, "../../..");

/** Env vars that would change a child's behaviour behind the test's back (a proxy, a policy default, S3 credentials). */
const HERMETIC_DROP = /^(https?_proxy|no_proxy|all_proxy|CRAWL_.*|AWS_.*)$/i;

export interface ExitInfo {
  /** The exit code, or null when a signal ended the process. */
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** A running (or finished) `crawl` child process. */
export interface CrawlRun {
  readonly pid: number;
  readonly out: string;
  readonly argv: readonly string[];
  /** The proxy it reaches the web through (`--proxy`, else HTTP_PROXY), if any. */
  readonly proxy: string | undefined;
  readonly startedAt: number;
  /** Everything the child wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Undefined while the process runs. */
  exit(): ExitInfo | undefined;
  /** Resolves when the process has exited and its output has been read to the end. */
  readonly exited: Promise<ExitInfo>;
  signal(sig: "SIGINT" | "SIGTERM" | "SIGKILL"): void;
  /** Waits for the exit, at most `timeoutMs`; throws (with the child's output) on timeout. */
  waitExit(timeoutMs: number): Promise<ExitInfo>;
  /** Peak resident memory of the process so far (VmHWM), in bytes; undefined once it has exited. */
  peakRssBytes(): number | undefined;
}

export interface WaitOptions {
  timeoutMs: number;
  /** What is awaited, for the timeout message. */
  what: string;
  /** Fail at once (with its output) if this crawl exits before the condition holds. */
  run?: CrawlRun;
  /** Extra detail for the timeout message (e.g. which pages are still missing). */
  detail?: () => string;
  intervalMs?: number;
}

/** The final summary `crawl` prints on stdout. */
export interface CrawlSummary {
  /** `done`, `max-pages`, `max-duration`, `interrupted`, `error`. */
  reason: string;
  pagesFetched: number;
  queued: number;
  scheduled: number;
  /** Counters by full name, e.g. `fetch.status.200`, `robots.verdict.parse`. */
  counters: Record<string, number>;
  /** The command the summary says resumes (stopped early) or continues (ended with work left) the crawl, if it printed one. */
  resumeCommand?: string;
}

export interface Harness {
  /** Starts a test web that is closed after the test. */
  web(opts: TestWebOptions): Promise<TestWeb>;
  /** A fresh empty directory, removed after the test. */
  tempDir(): string;
  /**
   * Spawns `bun embedded/main.ts ...argv` from the repository root. The child is killed after the test if
   * it still runs. Its env is this process's minus proxy and CRAWL_* variables, plus `env`.
   */
  crawl(argv: readonly string[], opts?: { out?: string; env?: Record<string, string> }): CrawlRun;
}

/**
 * Registers the per-test cleanup in the calling test file and returns the factory for its resources. The
 * cleanup also judges every crawl for politeness (../politeness.ts): once its crawls are stopped, each test
 * web's whole log must keep the gap rule its crawls were told, or the test fails.
 */
export function useHarness(): Harness {
  const runs: CrawlRun[] = [];
  const webs: TestWeb[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    const crawled = runs.splice(0);
    for (const run of crawled) {
      if (!run.exit()) run.signal("SIGKILL");
      await run.exited;
      if (KEEP_FOR_DEBUGGING && run.out) writeFileSync(join(run.out, "crawl-output.log"), `${run.stdout()}\n${run.stderr()}`);
    }
    try {
      // A crawl through a proxy reaches only that web; one without a proxy may reach any of them by address.
      for (const web of webs) {
        const reached = crawled.filter((run) => run.proxy === undefined || run.proxy === web.proxyUrl);
        assertPolite(
          web,
          reached.map((run) => gapPolicyOf(run.argv)),
        );
      }
    } finally {
      await Promise.all(webs.splice(0).map((w) => w.close()));
      for (const dir of dirs.splice(0)) {
        if (KEEP_FOR_DEBUGGING) keptDir("a crawl's temp dir", dir);
        else rmSync(dir, { recursive: true, force: true });
      }
    }
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "crawl-e2e-"));
    dirs.push(dir);
    return dir;
  };
  return {
    async web(opts) {
      const web = await startTestWeb(opts);
      webs.push(web);
      return web;
    },
    tempDir,
    crawl(argv, opts = {}) {
      const run = spawnCrawl(argv, opts.out ?? "", opts.env ?? {});
      runs.push(run);
      return run;
    },
  };
}

function spawnCrawl(argv: readonly string[], out: string, extraEnv: Record<string, string>): CrawlRun {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !HERMETIC_DROP.test(k)) env[k] = v;
  Object.assign(env, extraEnv);
  const proc = Bun.spawn([...BELOW_THE_JUDGE, process.execPath, "embedded/main.ts", ...argv], {
    cwd: REPO_ROOT,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stdout = "";
  let stderr = "";
  const drain = async (stream: ReadableStream<Uint8Array>, sink: (t: string) => void): Promise<void> => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }));
    sink(decoder.decode());
  };
  const outDone = drain(proc.stdout, (t) => (stdout += t));
  const errDone = drain(proc.stderr, (t) => (stderr += t));
  let info: ExitInfo | undefined;
  const exited = (async (): Promise<ExitInfo> => {
    await proc.exited;
    await Promise.all([outDone, errDone]);
    const done: ExitInfo = {
      code: proc.signalCode ? null : proc.exitCode,
      signal: proc.signalCode ? String(proc.signalCode) : null,
      stdout,
      stderr,
    };
    info = done;
    return done;
  })();
  const proxyAt = argv.indexOf("--proxy");
  const run: CrawlRun = {
    pid: proc.pid,
    out,
    argv,
    proxy: proxyAt >= 0 ? argv[proxyAt + 1] : (env.HTTP_PROXY ?? env.http_proxy),
    startedAt: Date.now(),
    stdout: () => stdout,
    stderr: () => stderr,
    exit: () => info,
    exited,
    signal(sig) {
      if (!info) proc.kill(sig);
    },
    async waitExit(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`crawl (pid ${proc.pid}) did not exit within ${timeoutMs} ms\n${describeOutput(run)}`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    peakRssBytes() {
      if (info) return undefined;
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
  };
  return run;
}

/** The child's output, for failure messages. */
export function describeOutput(run: CrawlRun): string {
  const tail = (s: string) => (s.length > 4000 ? `${s.slice(0, 1500)}\n…\n${s.slice(-2500)}` : s);
  return `--- crawl ${run.argv.join(" ")}\n--- stdout:\n${tail(run.stdout())}\n--- stderr:\n${tail(run.stderr())}`;
}

/** Polls `cond` until it holds; throws after `timeoutMs`, or as soon as `opts.run` exits. */
export async function waitFor(cond: () => boolean, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (cond()) return;
    if (opts.run?.exit()) {
      throw new Error(`crawl exited before ${opts.what}${opts.detail ? `\n${opts.detail()}` : ""}\n${describeOutput(opts.run)}`);
    }
    if (Date.now() >= deadline) {
      const extra = opts.detail ? `\n${opts.detail()}` : "";
      const output = opts.run ? `\n${describeOutput(opts.run)}` : "";
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}${extra}${output}`);
    }
    await Bun.sleep(opts.intervalMs ?? 25);
  }
}

/** The crawl's --http base URL, once it has logged it. */
export async function httpBase(run: CrawlRun): Promise<string> {
  let base = "";
  await waitFor(
    () => {
      base = /"dashboard":"(http:\/\/127\.0\.0\.1:\d+)\/dashboard"/.exec(run.stderr())?.[1] ?? "";
      return base !== "";
    },
    { timeoutMs: 30_000, what: "crawl to log its HTTP address", run },
  );
  return base;
}

/**
 * The crawl ended with exit code 0; otherwise the failure says how it ended (a code, or the signal that
 * ended it: a crash) and the end of what it wrote on stderr.
 */
export function expectCleanExit(exit: ExitInfo): void {
  const clean = exit.code === 0;
  expect({ code: exit.code, signal: exit.signal, stderr: clean ? "" : exit.stderr.slice(-3_000) }).toEqual({
    code: 0,
    signal: null,
    stderr: "",
  });
}

/**
 * Stops a crawl the way a user does (Ctrl-C), waits for it to exit and returns its summary. Use after the
 * condition a test waited for: a summary with nothing queued proves the crawler had no work left, so what
 * it did not fetch it never would have.
 */
export async function interrupt(run: CrawlRun, timeoutMs = 10_000): Promise<{ exit: ExitInfo; summary: CrawlSummary }> {
  run.signal("SIGINT");
  const exit = await run.waitExit(timeoutMs);
  return { exit, summary: parseSummary(exit.stdout, run) };
}

export function parseSummary(stdout: string, run?: CrawlRun): CrawlSummary {
  const reason = /^crawl stopped: (\S+)/m.exec(stdout)?.[1];
  if (!reason) throw new Error(`no crawl summary on stdout${run ? `\n${describeOutput(run)}` : ""}`);
  const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? NaN);
  const counters: Record<string, number> = {};
  for (const line of stdout.split("\n")) {
    const m = /^ {2}(\S+)\s{2,}(.*)$/.exec(line);
    if (!m || /^(pages|queued|output|resume|continue)$/.test(m[1]!)) continue;
    for (const item of m[2]!.split(", ")) {
      const kv = /^(\S+) (\d+)$/.exec(item);
      if (kv) counters[`${m[1]}.${kv[1]}`] = Number(kv[2]);
    }
  }
  return {
    reason,
    pagesFetched: num(/pages fetched\s+(\d+)/),
    queued: num(/queued\s+(\d+) URLs/),
    scheduled: num(/(\d+) scheduled for retry or refetch/),
    counters,
    resumeCommand: /(?:resume|continue) with\s+(.+)$/m.exec(stdout)?.[1],
  };
}

// ---- the request log as a crawl outcome -----------------------------------------------------------------

/** The paths that make up a host's robots.txt fetch (robots.txt, and a redirect target if it has one). */
export function robotsPathsOf(web: TestWeb, host: string): Set<string> {
  const robots = web.behaviour(host)?.robots;
  return new Set(robots?.paths ?? ["/robots.txt"]);
}

/** Whether a request is a host's /sitemap.xml probe that the test web answered 404 (a host that serves no sitemap there). */
export function isSitemapProbe(web: TestWeb, r: RequestRecord): boolean {
  return r.path === SITEMAP_PROBE_PATH && web.behaviour(r.host)?.servesSitemap !== true;
}

/**
 * Page requests, optionally only to `hosts`: robots.txt excluded, and the /sitemap.xml probe of a host that
 * has no sitemap there (probeRequests counts those; a host that serves one has it counted as a page).
 */
export function pageRequests(web: TestWeb, hosts?: Iterable<string>): RequestRecord[] {
  const only = hosts ? new Set(hosts) : undefined;
  return web.requests.filter((r) => (!only || only.has(r.host)) && !robotsPathsOf(web, r.host).has(r.path) && !isSitemapProbe(web, r));
}

/** The /sitemap.xml probes of hosts that serve no sitemap there (the default `--sitemaps probe`), optionally only to `hosts`. */
export function probeRequests(web: TestWeb, hosts?: Iterable<string>): RequestRecord[] {
  const only = hosts ? new Set(hosts) : undefined;
  return web.requests.filter((r) => (!only || only.has(r.host)) && isSitemapProbe(web, r));
}

/** `http://host/path` of a request, the form `web.expectedPages` uses. */
export function urlOf(r: RequestRecord): string {
  return `http://${r.host}${r.path}`;
}

/** How many times each page URL was requested. */
export function fetchCounts(requests: readonly RequestRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(urlOf(r), (counts.get(urlOf(r)) ?? 0) + 1);
  return counts;
}

/** URLs requested more than once, with their counts. */
export function repeated(requests: readonly RequestRecord[]): Record<string, number> {
  return Object.fromEntries([...fetchCounts(requests)].filter(([, n]) => n > 1));
}

/** The paths requested from one host (robots.txt included), in order. */
export function pathsOf(web: TestWeb, host: string): string[] {
  return web.requestsTo(host).map((r) => r.path);
}

/** The members of `want` not in `have`, sorted, for failure messages. */
export function missing(want: Iterable<string>, have: Iterable<string>): string[] {
  const got = new Set(have);
  return [...want].filter((x) => !got.has(x)).sort();
}

/** The usual arguments: seeds, the output dir, the test web as proxy, a short gap. */
export function crawlArgs(web: TestWeb, seeds: readonly string[], out: string, extra: readonly string[] = []): string[] {
  return [...seeds, "--out", out, "--proxy", web.proxyUrl, "--min-gap", "100ms", ...extra];
}

// ---- what a crawl leaves in --out ------------------------------------------------------------------------

/**
 * URLs in the running crawl's queue and sitemaps waiting to be read (optionally only of `hosts`), read from
 * its frontier store the way `crawl stats` reports "queued", but read-only so it never disturbs the crawl. A URL handed to a fetcher
 * stays queued until its result is committed, and the links a result brings are queued in the same
 * transaction, so 0 means the crawler has nothing to fetch and nothing in flight (retries and refetches
 * scheduled for later aside). Undefined before the store exists.
 */
export function queuedUrls(out: string, hosts?: Iterable<string>): number | undefined {
  const path = join(out, "frontier.sqlite");
  if (!existsSync(path)) return undefined;
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    const only = hosts ? [...hosts] : undefined;
    const where = only ? ` WHERE host IN (${only.map(() => "?").join(",")})` : "";
    const queued = (db.query(`SELECT count(*) AS n FROM queue${where}`).get(...(only ?? [])) as { n: number }).n;
    // Sitemaps waiting to be read are work too: the crawler requests them.
    const sitemaps = (
      db.query(`SELECT count(*) AS n FROM sitemaps${where ? `${where} AND` : " WHERE"} state = 'pending'`).get(...(only ?? [])) as {
        n: number;
      }
    ).n;
    return queued + sitemaps;
  } catch {
    return undefined; // not created yet, or busy for a moment: not idle as far as we know
  } finally {
    db?.close();
  }
}

/**
 * Waits until `cond` holds and the crawl has nothing queued for `hosts` (all hosts by default): the point
 * after which a correct crawler fetches nothing more from them.
 */
export async function waitUntilIdle(
  run: CrawlRun,
  cond: () => boolean,
  opts: { timeoutMs: number; what: string; hosts?: Iterable<string>; detail?: () => string },
): Promise<void> {
  const hosts = opts.hosts ? [...opts.hosts] : undefined;
  await waitFor(() => cond() && queuedUrls(run.out, hosts) === 0, {
    timeoutMs: opts.timeoutMs,
    what: `${opts.what}, then an empty queue`,
    run,
    intervalMs: 50,
    detail: () => `${opts.detail ? `${opts.detail()}\n` : ""}queued: ${queuedUrls(run.out, hosts)}`,
  });
}

export interface StoredRecord extends WarcRecordView {
  file: string;
}

/** The WARC files under OUT/warc, oldest first. */
export function warcFiles(out: string): string[] {
  const dir = join(out, "warc");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".warc.gz"))
    .sort()
    .map((f) => join(dir, f));
}

/** Every record of every WARC file under OUT/warc. */
export async function readAllRecords(out: string): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (const file of warcFiles(out)) {
    for await (const r of readWarc(file)) records.push({ ...r, file });
  }
  return records;
}

export interface CdxjEntry {
  surt: string;
  timestamp: string;
  url: string;
  status: string;
  offset: number;
  length: number;
  filename: string;
  mime?: string;
  digest?: string;
}

/** The lines of OUT/warc/index.cdxj. */
export function readCdxj(out: string): CdxjEntry[] {
  const path = join(out, "warc", "index.cdxj");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((line) => {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      if (!m) throw new Error(`malformed index.cdxj line: ${line}`);
      const j = JSON.parse(m[3]!) as Record<string, string>;
      return {
        surt: m[1]!,
        timestamp: m[2]!,
        url: j.url!,
        status: j.status!,
        offset: Number(j.offset),
        length: Number(j.length),
        filename: j.filename!,
        mime: j.mime,
        digest: j.digest,
      };
    });
}
