/**
 * The crawl policy knobs in one table: for each field its default, env var, CLI flag, description and
 * value kind (parser, formatter, range). The defaults are the policy table of ARCHITECTURE.md. Every
 * component receives the slice it needs (`Pick<PolicyConfig, ...>`), and `resolvePolicy` fills the
 * whole config from flags, env and these defaults. The table is typed against `PolicyConfig`, so adding
 * a knob without a row (or a row with the wrong kind) fails to compile.
 */
import { DEFAULT_DENIED_EXTENSIONS } from "../scope/index.ts";
import { cidrListKind, hostListKind } from "./address-kinds.ts";
import {
  decimalKind,
  durationKind,
  durationListKind,
  integerKind,
  oneOfKind,
  sizeKind,
  stringKind,
  switchKind,
  textKind,
} from "./field-kinds.ts";
import { extensionListKind, renderRuleListKind, urlPatternListKind } from "./scope-kinds.ts";
import type { RenderMode } from "../render/index.ts";
import { tableRows, type FieldRow, type FieldSpec, type FieldSpecs } from "./field-table.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MIB = 1024 * 1024;

/** The crawl policy. Times are milliseconds, sizes bytes. */
export interface PolicyConfig {
  /** Sent on every request (pages and robots.txt); names the crawler and where to read about it. */
  readonly userAgent: string;

  // Politeness: the gap after each fetch is max(minGap, multiplier x fetch time, Crawl-delay).
  readonly minGapMs: number;
  readonly gapFetchMultiplier: number;
  /**
   * Added to every wait between two requests to a host: the crawler learns a response has ended a little
   * after the server finished sending it (an aborted one, a little before the server sees it close), so
   * the policy holds as the server counts it, not only as the crawler does.
   */
  readonly gapMarginMs: number;
  /** Ceiling on any gap, including throttling after 429/503 and Retry-After. */
  readonly maxGapMs: number;
  /** Ceiling on a robots.txt Crawl-delay, so `Crawl-delay: 86400` cannot park a host for a day. */
  readonly crawlDelayCapMs: number;
  /** Weight of a host's recent failure rate in its gap: gap x (1 + consecutive + penalty x rate). */
  readonly hostFailurePenalty: number;
  /** How long a host may stay "in flight" without a result before it is released as a lost fetch. */
  readonly fetchLeaseMs: number;

  /**
   * What politeness is kept per (core/politeness/politeness-key.ts): each host (the default), each registrable
   * domain (all its hosts share one request at a time and one gap), or each server address (enforced at
   * fetch time by the address gate with one request at a time and the host gap).
   */
  readonly politenessKey: "host" | "domain" | "ip";

  // The cap per server address (core/ports AddressGate), over every host the server answers for: its resolved
  // IP address, or through a proxy its registrable domain. In a cluster it holds across a region's fetch nodes.
  /** Requests in flight at once to one server address at most. */
  readonly maxPerAddress: number;
  /** Least time between the starts of two requests to one server address. */
  readonly addressGapMs: number;
  /** A file of names resolved before the system resolver (the /etc/hosts format); "" for none. */
  readonly hostsFile: string;

  // Fetching.
  readonly connectTimeoutMs: number;
  /**
   * How long an idle connection to a host is kept for the next request to it (a server's Keep-Alive hint may
   * shorten it, never lengthen it).
   */
  readonly keepAliveMs: number;
  /** Whole response, from request start to the last body byte. */
  readonly responseTimeoutMs: number;
  /** Body cap, counted after decompression. */
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  /** robots.txt cache lifetime; RFC 9309 allows at most 24 h. */
  readonly robotsMaxAgeMs: number;

  // Address safety (core/net): which hosts and addresses may be fetched at all. Checked at admission, at
  // fetch time (with or without a proxy) and, without a proxy, on every address a name resolves to.
  /** Allow loopback, private, link-local... addresses, localhost and local names; metadata stays refused. */
  readonly allowPrivateAddresses: boolean;
  /** Address ranges allowed whatever their kind (the only way to allow a metadata address). */
  readonly allowAddresses: readonly string[];
  /** Address ranges always refused, winning over every allowance. */
  readonly denyAddresses: readonly string[];
  /** Host names refused with every name under them. */
  readonly denyHosts: readonly string[];
  // Media (images, video, audio named by a page): always listed; fetched only when asked for.
  /** Admit the media URLs pages name as URLs of their own kind, fetched under the same politeness. */
  readonly fetchMedia: boolean;
  /** Body cap of a media fetch, counted after decompression (pages keep maxBodyBytes). */
  readonly maxMediaBodyBytes: number;

  // Rendering (core/render, engine/render): pages built by scripts, rendered in headless Chromium.
  /** `never`, `auto` (pages whose HTML looks script-built, and hosts where rendering found more), `always`. */
  readonly render: RenderMode;
  /** Per-host and URL-pattern rules overriding `render` (`always:example.com`, `never:https://x/static/*`). */
  readonly renderRules: readonly string[];
  /** Pages rendering at once in one fetch path (a fetch node, or each of crawl's fetch threads). */
  readonly renderPool: number;
  /** Hard deadline of one render, the page's own requests included. */
  readonly renderTimeoutMs: number;
  /** The browser is restarted once it holds more memory than this. */
  readonly renderMemoryCapBytes: number;
  /** Also keep a PNG of each rendered page (a WARC resource record). */
  readonly renderScreenshots: boolean;
  /** The Chromium binary. */
  readonly chromiumPath: string;

  // Retries: the n-th consecutive failure waits retryDelaysMs[n-1] (last one repeats); failing more
  // than maxFailures times in a row makes the URL dead for deadForMs.
  readonly retryDelaysMs: readonly number[];
  readonly maxFailures: number;
  readonly deadForMs: number;

  // Refetch: the interval doubles when a page is unchanged (or 304) and halves when it changed.
  readonly refetchInitialMs: number;
  readonly refetchMinMs: number;
  readonly refetchMaxMs: number;
  /** Lets the refetch bounds go below one minute (tests, small sites of one's own). */
  readonly allowShortRefetch: boolean;

  /** Pages at most this deep (links from a seed) get priority 2; deeper ones 3. */
  readonly shallowDepth: number;

  // Scope and filters (core/scope): which discovered URLs may be queued at all.
  /** `host`: only the seeds' hosts; `domain`: their registrable domains; `any`: wherever links lead. */
  readonly scope: "host" | "domain" | "any";
  /** Links followed from a seed; a seed has depth 0. Deeper URLs are never queued. */
  readonly maxDepth: number;
  /** When not empty, only these hosts (and the names under them) are crawled. */
  readonly allowHosts: readonly string[];
  /** When not empty, only URLs matching one of these patterns are crawled. */
  readonly allowUrls: readonly string[];
  /** URLs matching one of these patterns are never crawled. */
  readonly denyUrls: readonly string[];
  /** Links whose path ends in one of these extensions are never crawled. */
  readonly denyExtensions: readonly string[];
  /** A file of further allow and deny entries (core/scope/scope-file.ts); "" for none. */
  readonly scopeFile: string;

  /** Sitemaps: `off`, `robots` (the Sitemap lines of robots.txt), `probe` (those, else /sitemap.xml; the default). */
  readonly sitemaps: "off" | "robots" | "probe";

  // Trap limits.
  readonly maxUrlLength: number;
  /** A path in which one segment occurs this many times or more is a trap (`/a/b/a/b/a`). */
  readonly maxRepeatedSegment: number;
  readonly maxQueuePerHost: number;
  readonly maxPagesPerHostPerDay: number;
  /** URLs of one host that differ only by numbers (`/calendar/2026/11/29`) allowed in the queue. */
  readonly maxQueuedPerPattern: number;
}

/** One row of the table, without its field name. */
export type PolicyFieldSpec<T> = FieldSpec<T>;

/** One row of the table. */
export type PolicyField = FieldRow<PolicyConfig>;

const SPECS: FieldSpecs<PolicyConfig> = {
  userAgent: {
    default: "PoliteCrawler/0.1 (+https://github.com/polite-crawler/crawler)",
    env: "CRAWL_USER_AGENT",
    flag: "--user-agent",
    description: "User-Agent header: the crawler's name and a URL explaining it",
    ...textKind(),
  },
  minGapMs: {
    default: 1 * SECOND,
    env: "CRAWL_MIN_GAP",
    flag: "--min-gap",
    description: "Least time between the end of one fetch and the start of the next to the same host (0 allowed)",
    ...durationKind({ min: 0, max: DAY }),
  },
  gapFetchMultiplier: {
    default: 10,
    env: "CRAWL_GAP_FETCH_MULTIPLIER",
    flag: "--gap-fetch-multiplier",
    description: "The gap is at least this many times the duration of the host's last fetch",
    ...decimalKind({ min: 0, max: 1000 }),
  },
  politenessKey: {
    default: "host",
    env: "CRAWL_POLITENESS_KEY",
    flag: "--politeness-key",
    description:
      "What one request at a time and the gap are kept per: host, domain (every host of a registrable domain, by the Public Suffix List, shares them) or ip (every host a server address answers for, held at fetch time with one request at a time; through a proxy, the domain)",
    ...oneOfKind(["host", "domain", "ip"] as const),
  },
  maxPerAddress: {
    default: 2,
    env: "CRAWL_MAX_PER_ADDRESS",
    flag: "--max-per-address",
    description:
      "Requests in flight at once to one server address (its IP, or through a proxy its registrable domain) across all the hosts it serves; in a cluster across the region's fetch nodes",
    ...integerKind({ min: 1, max: 1000 }),
  },
  addressGapMs: {
    default: 250,
    env: "CRAWL_ADDRESS_GAP",
    flag: "--address-gap",
    description:
      "Least time between the starts of two requests to one server address (its IP, or through a proxy its registrable domain), whatever host they are for (0 allowed)",
    ...durationKind({ min: 0, max: MINUTE }),
  },
  hostsFile: {
    default: "",
    defaultText: "none",
    env: "CRAWL_HOSTS_FILE",
    flag: "--hosts-file",
    description:
      "Names resolved from this file before the system resolver, in the /etc/hosts format (an address, then its names); its addresses still pass the address rules. Not used through a proxy",
    ...stringKind("file"),
  },
  gapMarginMs: {
    default: 5,
    env: "CRAWL_GAP_MARGIN",
    flag: "--gap-margin",
    description:
      "Added to every per-host wait (gap, Crawl-delay, Retry-After), so the wait holds as the server measures it: from the end of its response to the arrival of the next request",
    ...durationKind({ min: 0, max: SECOND }),
  },
  maxGapMs: {
    default: 1 * DAY,
    env: "CRAWL_MAX_GAP",
    flag: "--max-gap",
    description: "Ceiling on any per-host gap, including throttling and Retry-After",
    ...durationKind({ min: SECOND, max: 30 * DAY }),
  },
  crawlDelayCapMs: {
    default: 60 * SECOND,
    env: "CRAWL_CRAWL_DELAY_CAP",
    flag: "--crawl-delay-cap",
    description: "Largest robots.txt Crawl-delay honoured; longer ones are cut to this",
    ...durationKind({ min: 0, max: DAY }),
  },
  hostFailurePenalty: {
    default: 4,
    env: "CRAWL_HOST_FAILURE_PENALTY",
    flag: "--host-failure-penalty",
    description: "How much a host's recent failure rate (0..1) stretches its gap: gap x (1 + consecutive failures + penalty x rate)",
    ...decimalKind({ min: 0, max: 100 }),
  },
  fetchLeaseMs: {
    default: 5 * MINUTE,
    env: "CRAWL_FETCH_LEASE",
    flag: "--fetch-lease",
    description: "A host in flight this long without a result is released as a lost fetch (not the host's failure)",
    ...durationKind({ min: SECOND, max: DAY }),
  },
  connectTimeoutMs: {
    default: 5 * SECOND,
    env: "CRAWL_CONNECT_TIMEOUT",
    flag: "--connect-timeout",
    description: "Time allowed to open a connection (TCP and TLS)",
    ...durationKind({ min: 1, max: 5 * MINUTE }),
  },
  keepAliveMs: {
    default: 20 * SECOND,
    env: "CRAWL_KEEP_ALIVE",
    flag: "--keep-alive",
    description:
      "How long an idle connection to a host is kept for its next request; a server's Keep-Alive hint may shorten it. Each idle connection holds an open file",
    ...durationKind({ min: 1, max: 10 * MINUTE }),
  },
  responseTimeoutMs: {
    default: 20 * SECOND,
    env: "CRAWL_RESPONSE_TIMEOUT",
    flag: "--response-timeout",
    description: "Time allowed for a whole response, from request start to the last body byte",
    ...durationKind({ min: 1, max: 30 * MINUTE }),
  },
  maxBodyBytes: {
    default: 5 * MIB,
    env: "CRAWL_MAX_BODY",
    flag: "--max-body",
    description: "Body size cap, counted after decompression; longer bodies are cut",
    ...sizeKind({ min: 1024, max: 1024 * MIB }),
  },
  maxRedirects: {
    default: 5,
    env: "CRAWL_MAX_REDIRECTS",
    flag: "--max-redirects",
    description: "Redirect hops followed from one URL; each hop is a new URL through normalize and the seen check",
    ...integerKind({ min: 0, max: 20 }),
  },
  robotsMaxAgeMs: {
    default: 24 * HOUR,
    env: "CRAWL_ROBOTS_MAX_AGE",
    flag: "--robots-max-age",
    description: "How long a fetched robots.txt is trusted (RFC 9309 allows at most 24h)",
    ...durationKind({ min: MINUTE, max: 24 * HOUR }),
  },
  allowPrivateAddresses: {
    default: false,
    env: "CRAWL_ALLOW_PRIVATE_ADDRESSES",
    flag: "--allow-private-addresses",
    description:
      "Allow loopback, private, link-local and other internal addresses, localhost, local and single-label names (tests, intranets); metadata addresses stay refused",
    ...switchKind(),
  },
  allowAddresses: {
    default: [],
    defaultText: "none",
    env: "CRAWL_ALLOW_ADDRESSES",
    flag: "--allow-addresses",
    description:
      "Address ranges fetched although internal, comma-separated (10.1.0.0/16,fd00:1::/48); the only way to allow a metadata address. --deny-addresses wins",
    ...cidrListKind(),
  },
  denyAddresses: {
    default: [],
    defaultText: "none",
    env: "CRAWL_DENY_ADDRESSES",
    flag: "--deny-addresses",
    description:
      "Address ranges never fetched, besides the built-in internal ranges, comma-separated (203.0.113.0/24); checked on literal hosts always and on resolved addresses without a proxy",
    ...cidrListKind(),
  },
  denyHosts: {
    default: [],
    defaultText: "none",
    env: "CRAWL_DENY_HOSTS",
    flag: "--deny-hosts",
    description:
      "Host names never fetched, each with every name under it, comma-separated (corp.example.com,.nip.io); with or without a proxy",
    ...hostListKind(),
  },
  fetchMedia: {
    default: false,
    env: "CRAWL_FETCH_MEDIA",
    flag: "--fetch-media",
    description:
      "Also fetch the images, video and audio pages name (listed in the WARC and media.jsonl either way), under the same politeness, stored as WARC responses, never parsed",
    ...switchKind(),
  },
  maxMediaBodyBytes: {
    default: 20 * MIB,
    env: "CRAWL_MAX_MEDIA_BODY",
    flag: "--max-media-body",
    description: "Body size cap of a media fetch (--fetch-media), counted after decompression; longer bodies are cut",
    ...sizeKind({ min: 1024, max: 4096 * MIB }),
  },
  render: {
    default: "never",
    env: "CRAWL_RENDER",
    flag: "--render",
    description:
      "Render pages in headless Chromium to find the links their scripts make: never, auto (pages whose HTML looks script-built, and every page of a host where rendering found more), always; every request of a rendered page goes through robots.txt, the host's gap and the address policy (README)",
    ...oneOfKind(["never", "auto", "always"] as const),
  },
  renderRules: {
    default: [],
    defaultText: "none",
    env: "CRAWL_RENDER_RULES",
    flag: "--render-rules",
    description:
      "Rules overriding --render, separated by blanks: MODE:HOST (that host and the names under it) or MODE:URL-PATTERN; also render-host and render-url lines of --scope-file",
    ...renderRuleListKind(),
  },
  renderPool: {
    default: 2,
    env: "CRAWL_RENDER_POOL",
    flag: "--render-pool",
    description: "Pages rendering at once in one Chromium (per fetch node, and per fetch thread of crawl)",
    ...integerKind({ min: 1, max: 64 }),
  },
  renderTimeoutMs: {
    default: 15 * SECOND,
    env: "CRAWL_RENDER_TIMEOUT",
    flag: "--render-timeout",
    description:
      "Hard deadline of one render; the page's requests to its host that would wait for their turn beyond it are failed to the page, and the DOM is taken as it stands",
    ...durationKind({ min: SECOND, max: 2 * MINUTE }),
  },
  renderMemoryCapBytes: {
    default: 1024 * MIB,
    env: "CRAWL_RENDER_MEMORY_CAP",
    flag: "--render-memory-cap",
    description: "Chromium (all its processes) is restarted, once its running renders end, when it holds more than this",
    ...sizeKind({ min: 64 * MIB, max: 64 * 1024 * MIB }),
  },
  renderScreenshots: {
    default: false,
    env: "CRAWL_RENDER_SCREENSHOTS",
    flag: "--render-screenshots",
    description: "Also keep a PNG of each rendered page's window, as a WARC resource record referring to the response",
    ...switchKind(),
  },
  chromiumPath: {
    default: "/usr/bin/chromium",
    env: "CRAWL_CHROMIUM",
    flag: "--chromium",
    description: "The Chromium binary rendering uses (Debian's package; a browser a tool downloads is never used)",
    ...stringKind("file"),
  },
  retryDelaysMs: {
    default: [1 * HOUR, 6 * HOUR, 24 * HOUR],
    env: "CRAWL_RETRY_DELAYS",
    flag: "--retry-delays",
    description: "Wait before retrying after the 1st, 2nd, 3rd... consecutive failure; the last one repeats",
    ...durationListKind({ min: SECOND, max: 30 * DAY }),
  },
  maxFailures: {
    default: 3,
    env: "CRAWL_MAX_FAILURES",
    flag: "--max-failures",
    description: "Consecutive failures (retries included) a URL may have; one more makes it dead",
    ...integerKind({ min: 0, max: 100 }),
  },
  deadForMs: {
    default: 7 * DAY,
    env: "CRAWL_DEAD_FOR",
    flag: "--dead-for",
    description: "How long a dead URL rests before it is tried once more",
    ...durationKind({ min: MINUTE, max: 365 * DAY }),
  },
  refetchInitialMs: {
    default: 1 * DAY,
    env: "CRAWL_REFETCH_INITIAL",
    flag: "--refetch-initial",
    description: "Refetch interval after a page's first fetch",
    ...durationKind({ min: SECOND, max: 365 * DAY }),
  },
  refetchMinMs: {
    default: 1 * HOUR,
    env: "CRAWL_REFETCH_MIN",
    flag: "--refetch-min",
    description: "Shortest refetch interval, reached by pages that keep changing (below 1m only with --allow-short-refetch)",
    ...durationKind({ min: SECOND, max: 365 * DAY }),
  },
  refetchMaxMs: {
    default: 30 * DAY,
    env: "CRAWL_REFETCH_MAX",
    flag: "--refetch-max",
    description: "Longest refetch interval, reached by pages that never change",
    ...durationKind({ min: SECOND, max: 365 * DAY }),
  },
  allowShortRefetch: {
    default: false,
    env: "CRAWL_ALLOW_SHORT_REFETCH",
    flag: "--allow-short-refetch",
    description:
      "Allow refetch intervals below one minute (--refetch-initial/-min/-max down to 1s): meant for tests and small sites of your own, never for the web at large",
    ...switchKind(),
  },
  shallowDepth: {
    default: 3,
    env: "CRAWL_SHALLOW_DEPTH",
    flag: "--shallow-depth",
    description: "Pages at most this many links from a seed get priority 2, deeper ones 3",
    ...integerKind({ min: 0, max: 1000 }),
  },
  scope: {
    default: "any",
    env: "CRAWL_SCOPE",
    flag: "--scope",
    description:
      "Where links may lead: host (only the seeds' hosts), domain (the seeds' registrable domains, by the Public Suffix List), any",
    ...oneOfKind(["host", "domain", "any"] as const),
  },
  maxDepth: {
    default: 20,
    env: "CRAWL_MAX_DEPTH",
    flag: "--max-depth",
    description:
      "Most links followed from a seed: a seed has depth 0, a page it links 1...; a redirect keeps its source's depth, a sitemap entry is one deeper than the page that led to its host",
    ...integerKind({ min: 0, max: 1000 }),
  },
  allowHosts: {
    default: [],
    defaultText: "none: every host",
    env: "CRAWL_ALLOW_HOSTS",
    flag: "--allow-hosts",
    description: "Only these hosts are crawled, each with every name under it, comma-separated (example.com,docs.example.org)",
    ...hostListKind(),
  },
  allowUrls: {
    default: [],
    defaultText: "none: every URL",
    env: "CRAWL_ALLOW_URLS",
    flag: "--allow-urls",
    description:
      "Only URLs matching one of these patterns are crawled, separated by blanks: globs on the whole URL (* any run, ? one character), or re:REGEX found anywhere in it",
    ...urlPatternListKind(),
  },
  denyUrls: {
    default: [],
    defaultText: "none",
    env: "CRAWL_DENY_URLS",
    flag: "--deny-urls",
    description: "URLs matching one of these patterns are never crawled (same syntax as --allow-urls)",
    ...urlPatternListKind(),
  },
  denyExtensions: {
    default: DEFAULT_DENIED_EXTENSIONS,
    defaultText: "archives, images, video, audio, executables, fonts (README)",
    env: "CRAWL_DENY_EXTENSIONS",
    flag: "--deny-extensions",
    description:
      'Links whose path ends in one of these extensions are never crawled, comma-separated; "+pdf,doc" adds to the default list, "" allows all',
    ...extensionListKind(DEFAULT_DENIED_EXTENSIONS),
  },
  scopeFile: {
    default: "",
    defaultText: "none",
    env: "CRAWL_SCOPE_FILE",
    flag: "--scope-file",
    description: "A file of allow-host, deny-host, allow-url, deny-url and deny-extension lines, added to the lists above (README)",
    ...stringKind("file"),
  },
  sitemaps: {
    default: "probe",
    env: "CRAWL_SITEMAPS",
    flag: "--sitemaps",
    description:
      "Sitemaps read for URLs, lastmod and priority: off, robots (those robots.txt names), probe (those, else one request for /sitemap.xml of every host crawled)",
    ...oneOfKind(["off", "robots", "probe"] as const),
  },
  maxUrlLength: {
    default: 2048,
    env: "CRAWL_MAX_URL_LENGTH",
    flag: "--max-url-length",
    description: "Longest normalized URL accepted, in characters",
    ...integerKind({ min: 32, max: 65536 }),
  },
  maxRepeatedSegment: {
    default: 3,
    env: "CRAWL_MAX_REPEATED_SEGMENT",
    flag: "--max-repeated-segment",
    description: "A URL path in which one segment occurs this many times or more is rejected as a trap",
    ...integerKind({ min: 2, max: 100 }),
  },
  maxQueuePerHost: {
    default: 100_000,
    env: "CRAWL_MAX_QUEUE_PER_HOST",
    flag: "--max-queue-per-host",
    description: "Most URLs queued for one host; new URLs beyond it are rejected",
    ...integerKind({ min: 1 }),
  },
  maxPagesPerHostPerDay: {
    default: 10_000,
    env: "CRAWL_MAX_PAGES_PER_HOST_PER_DAY",
    flag: "--max-pages-per-host-per-day",
    description: "Most pages fetched from one host per UTC day",
    ...integerKind({ min: 1 }),
  },
  maxQueuedPerPattern: {
    default: 1_000,
    env: "CRAWL_MAX_QUEUED_PER_PATTERN",
    flag: "--max-queued-per-pattern",
    description: "Most queued URLs of one host that differ only by numbers or dates (calendar traps)",
    ...integerKind({ min: 1 }),
  },
};

/** The table, one row per field, in a stable order for help text. */
export const POLICY_FIELDS: readonly PolicyField[] = tableRows(SPECS);

/**
 * One row of the table, for a process that takes that knob on its own behalf rather than the whole policy
 * (`cluster up` passes `--allow-private-addresses` on to every role): the row is written once, here.
 */
export function policyFieldSpec<K extends keyof PolicyConfig>(field: K): PolicyFieldSpec<PolicyConfig[K]> {
  return SPECS[field];
}

/** The defaults of every knob. Frozen, lists included: derive a changed copy with a spread. */
export const DEFAULT_POLICY: PolicyConfig = Object.freeze(
  Object.fromEntries(POLICY_FIELDS.map((row) => [row.field, row.default])) as unknown as PolicyConfig,
);
