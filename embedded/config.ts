/**
 * The `crawl` command line in one table, like every other process's: its own settings (seeds, output
 * directory, limits, proxy, threads) with their defaults, `CRAWL_*` env vars and flags, plus the WARC
 * rolling and upload rows the fetch node reads too (engine/fetch's WARC_ROLL_SETTINGS, adapters/s3's
 * S3_UPLOAD_SETTINGS), plus every policy knob of core/config (address safety included); the seed URLs
 * are the arguments that are not flags. `--out` is required. Bad input is one CrawlConfigError naming
 * every problem (fatal: nothing is started, exit 2).
 */
import {
  ConfigError,
  dirKind,
  durationKind,
  integerKind,
  POLICY_FIELDS,
  readConfig,
  stringKind,
  switchKind,
  tableRows,
  usageText,
  type Env,
  type FieldRow,
  type FieldSpecs,
  type PolicyConfig,
} from "../core/config/index.ts";
import { tokenListKind } from "../core/auth/index.ts";
import { FEED_RETENTION_SPECS } from "../core/feed/index.ts";
import { JOB_ID_PATTERN } from "../core/jobs/index.ts";
import { parseHostPort, type HostPort } from "../core/net/index.ts";
import { LOG_FORMAT_FIELD, type LogFormat } from "../kit/log/index.ts";
import { PROXY_URL_FIELD, proxyFromEnv } from "../kit/net/index.ts";
import { WARC_ROLL_SETTINGS, type WarcRollSettings } from "../engine/fetch/index.ts";
import { resolveS3Target, S3_UPLOAD_SETTINGS, type S3Target, type S3UploadSettings } from "../adapters/s3/index.ts";

/** The table's values; a default left undefined means "none" (`defaultText` says so). */
export interface CrawlSettings {
  seedsFile: string | undefined;
  feedsFile: string | undefined;
  /** `--job`: the crawl job the command line's seeds belong to (created when new); none: `default`. */
  job: string | undefined;
  out: string | undefined;
  maxPages: number | undefined;
  maxDurationMs: number | undefined;
  continuous: boolean;
  waitHorizonMs: number;
  proxyUrl: string | undefined;
  maxInFlight: number;
  maxQueued: number;
  confirmAllSeen: boolean;
  fetchThreads: number;
  quiet: boolean;
  /** `--http`: host:port (a bare port means 127.0.0.1) of the dashboard, /metrics and /healthz; none: off. */
  http: string | undefined;
  adminTokens: readonly string[];
  metricsTokens: readonly string[];
  logFormat: LogFormat | undefined;
  /** The feed of fetched pages under --out (`--http`'s GET /v1/jobs/{id}/pages): kept this long, this big. */
  feedMaxAgeMs: number;
  feedMaxBytes: number;
}

/** What `crawl` runs with: the settings, the seed URLs given as arguments, and the policy. */
export interface CrawlConfig extends Omit<CrawlSettings, "out" | "proxyUrl" | "http"> {
  /** Where `--http` listens (a bare port made 127.0.0.1:PORT); undefined: no HTTP listener. */
  http: HostPort | undefined;
  seeds: string[];
  out: string;
  /** `--proxy`, else the environment's (kit/net). */
  proxyUrl: string | undefined;
  /** Rolling of WARC files, and their upload when `upload` is set (WARC_ROLL_SETTINGS, S3_UPLOAD_SETTINGS). */
  warc: { rollBytes: number; rollAgeMs: number; uploadDrainMs: number; text: WarcRollSettings["text"]; upload?: S3Target };
  policy: PolicyConfig;
}

const SPECS: FieldSpecs<CrawlSettings> = {
  feedsFile: {
    default: undefined,
    defaultText: "none",
    env: "CRAWL_FEEDS",
    flag: "--feeds",
    description:
      "Feed URLs (RSS 2.0, Atom 1.0), one per line: each is read like a sitemap, its items queued first with their dates; read again on its own adaptive schedule (--refetch-initial, -min, -max) with a conditional GET",
    ...dirKind(),
    kind: "file",
  },
  seedsFile: {
    default: undefined,
    defaultText: "none",
    env: "CRAWL_SEEDS",
    flag: "--seeds",
    description: "Seed URLs, one per line (blank lines and # comments ignored), besides those given as arguments",
    ...dirKind(),
    kind: "file",
  },
  job: {
    default: undefined,
    defaultText: "none: job default",
    env: "CRAWL_JOB",
    flag: "--job",
    description:
      "The crawl job the command line's seeds (arguments, --seeds) belong to; created with no limits when it does not exist yet (jobs with limits: POST /v1/jobs with --http). Feeds and sitemaps list URLs of job default, as in a cluster",
    ...stringKind("id", (value) =>
      JOB_ID_PATTERN.test(value) ? undefined : `must be 1-40 characters of a-z, 0-9 and -, got "${value.slice(0, 50)}"`,
    ),
  },
  out: {
    default: undefined,
    defaultText: "required",
    env: "CRAWL_OUT",
    flag: "--out",
    description: "All state and output; running again with the same directory resumes",
    ...dirKind(),
  },
  maxPages: {
    default: undefined,
    defaultText: "no limit",
    env: "CRAWL_MAX_PAGES",
    flag: "--max-pages",
    description: "Stop cleanly after this many page responses",
    ...integerKind({ min: 1 }),
  },
  maxDurationMs: {
    default: undefined,
    defaultText: "no limit",
    env: "CRAWL_MAX_DURATION",
    flag: "--max-duration",
    description: "Stop cleanly after this long (90s, 2h)",
    ...durationKind({ min: 1 }),
  },
  continuous: {
    default: false,
    env: "CRAWL_CONTINUOUS",
    flag: "--continuous",
    description:
      "Keep running when nothing is due, for refetches (conditional GET) and retries as they fall due; stop with Ctrl-C, --max-duration or --max-pages",
    ...switchKind(),
  },
  waitHorizonMs: {
    default: 60_000,
    env: "CRAWL_WAIT_HORIZON",
    flag: "--wait-horizon",
    description:
      "Without --continuous: end once nothing can be fetched within this long (a retry, a refetch, a host whose robots.txt was unavailable; a host's politeness gap is always waited for), saying what is left and how to continue",
    ...durationKind({ min: 0, max: 7 * 24 * 3_600_000 }),
  },
  proxyUrl: PROXY_URL_FIELD,
  maxInFlight: {
    default: 512,
    env: "CRAWL_MAX_IN_FLIGHT",
    flag: "--max-in-flight",
    description: "Fetches running at once, each to a different host",
    ...integerKind({ min: 1 }),
  },
  maxQueued: {
    default: 0,
    env: "CRAWL_MAX_QUEUED",
    flag: "--max-queued",
    description:
      "Frontier size limit (0: none); beyond it the lowest-priority URLs are dropped. A limit keeps an index of the queue by priority: about 38 B of disk a queued URL, and a page written per fetch",
    ...integerKind({ min: 0 }),
  },
  confirmAllSeen: {
    default: false,
    env: "CRAWL_CONFIRM_ALL_SEEN",
    flag: "--confirm-all-seen",
    description: "Confirm every Bloom 'maybe seen' in the exact store, not only home pages",
    ...switchKind(),
  },
  fetchThreads: {
    default: 2,
    env: "CRAWL_FETCH_THREADS",
    flag: "--fetch-threads",
    description: "Threads running the fetch path (HTTP, parse, WARC) beside the frontier's (0: all in one thread)",
    ...integerKind({ min: 0 }),
  },
  quiet: {
    default: false,
    env: "CRAWL_QUIET",
    flag: "--quiet",
    description: "No progress line, only the summary",
    ...switchKind(),
  },
  http: {
    default: undefined,
    defaultText: "none: no HTTP listener",
    env: "CRAWL_HTTP",
    flag: "--http",
    description:
      "Serve the dashboard (/dashboard), crawl jobs and their feed of fetched pages (/v1/jobs), /metrics (Prometheus) and /healthz on this host:port; a bare port listens on 127.0.0.1 only",
    ...stringKind("[host:]port", (value) =>
      httpListen(value) ? undefined : `must be a port or host:port (port 0 picks a free one), got "${value}"`,
    ),
  },
  adminTokens: {
    default: [],
    defaultText: "none: the dashboard's API is open",
    env: "CRAWL_ADMIN_TOKEN",
    flag: "--admin-token",
    description:
      "Bearer token(s) the dashboard's API (/v1/...) requires with --http, comma-separated; set one when the listener is reachable by others",
    ...tokenListKind(),
  },
  metricsTokens: {
    default: [],
    defaultText: "none: /metrics is open",
    env: "CRAWL_METRICS_TOKEN",
    flag: "--metrics-token",
    description: "Bearer token(s) /metrics requires with --http, comma-separated; the admin token is not accepted there",
    ...tokenListKind(),
  },
  ...FEED_RETENTION_SPECS,
  logFormat: LOG_FORMAT_FIELD,
};

export const CRAWL_FIELDS = tableRows(SPECS);

/** WARC rolling and upload: the same rows (flags and env vars) as the fetch node's. */
const WARC_FIELDS = [...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS];

/** Every row `crawl` reads besides the policy: its own table, then the WARC rolling and upload rows. */
const ALL_FIELDS: readonly FieldRow<CrawlSettings & WarcRollSettings & S3UploadSettings>[] = [...CRAWL_FIELDS, ...WARC_FIELDS];

/** `crawl` cannot start with these arguments (fatal): fix the listed values. */
export class CrawlConfigError extends ConfigError.titled("invalid crawl configuration") {}

/**
 * Reads argv (seed URLs and flags, in any order) over env over the defaults, the policy included.
 * `--help` is not handled here. Throws CrawlConfigError listing every problem.
 */
export function resolveCrawlConfig(argv: readonly string[], env: Env): CrawlConfig {
  const read = readConfig(argv, env, ALL_FIELDS, {
    policy: true,
    positionals: true,
    rest: true,
    unknown: (_arg, name) => `unknown option ${name} (see crawl --help)`,
  });
  const { values, problems, policy } = read;
  const out = values.out;
  if (!out) problems.push("--out DIR is required (it holds the crawl's state and output)");
  const upload = resolveS3Target(values, problems);
  if (problems.length > 0 || !policy || !out) throw new CrawlConfigError(problems);
  // The WARC rows are carried once, as `warc`; the credentials only inside its upload target.
  const {
    warcRollSize,
    warcRollAge,
    warcUploadDrain,
    text,
    warcUpload,
    s3Endpoint,
    s3Region,
    s3AccessKeyId,
    s3SecretAccessKey,
    s3SessionToken,
    ...own
  } = values;
  return {
    ...own,
    seeds: [...read.positionals, ...read.rest],
    out,
    proxyUrl: own.proxyUrl ?? proxyFromEnv(env),
    http: own.http === undefined ? undefined : httpListen(own.http),
    warc: { rollBytes: warcRollSize, rollAgeMs: warcRollAge, uploadDrainMs: warcUploadDrain, text, upload },
    policy,
  };
}

/** `crawl --help`: the synopsis, then the table, the WARC rolling and upload rows, then the policy. */
export function crawlUsage(): string {
  return usageText(
    ["usage: crawl [URL...] [--seeds FILE] --out DIR [options]", "       crawl stats --out DIR"],
    [
      "Crawls from the seed URLs, politely, into WARC files under DIR, with every role in this one process.",
      "Stop with Ctrl-C; run the same command again to resume.",
    ],
    [
      { title: "options (flag > env > default)", rows: CRAWL_FIELDS },
      { title: "WARC files and their upload to object storage (flag > env > default)", rows: WARC_FIELDS },
      { title: "policy (flag > env > default)", rows: POLICY_FIELDS },
    ],
  );
}

/** `--http`'s value as host:port: a bare port listens on loopback only. */
export function httpListen(value: string): HostPort | undefined {
  const trimmed = value.trim();
  if (/^\d{1,5}$/.test(trimmed)) return Number(trimmed) <= 65535 ? { host: "127.0.0.1", port: Number(trimmed) } : undefined;
  return parseHostPort(trimmed);
}
