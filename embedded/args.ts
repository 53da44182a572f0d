/**
 * The `crawl` command line: its own flags (seeds, output directory, limits, proxy) and every policy
 * knob of core/config (address safety included), each with its default from the policy table. Bad input is a
 * CrawlArgsError with a message that names the flag; nothing is started.
 */
import { POLICY_FIELDS, parseDuration, readFields, resolvePolicy, usageLine, type PolicyConfig } from "../core/config/index.ts";
import { resolveS3Target, S3_UPLOAD_SETTINGS, type S3Target } from "../adapters/s3/index.ts";
import { WARC_ROLL_SETTINGS } from "../engine/fetch/index.ts";

/** WARC rolling and upload: the same tables (flags and env vars) as the fetch node's. */
const WARC_ROWS = [...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS];

export interface CrawlArgs {
  seeds: string[];
  seedsFile?: string;
  out: string;
  maxPages?: number;
  maxDurationMs?: number;
  proxy?: string;
  maxInFlight: number;
  maxQueued: number;
  confirmAllSeen: boolean;
  fetchThreads: number;
  quiet: boolean;
  /** Rolling of WARC files, and their upload when `upload` is set. */
  warc: { rollBytes: number; rollAgeMs: number; uploadDrainMs: number; upload?: S3Target };
  policy: PolicyConfig;
}

export class CrawlArgsError extends Error {
  override name = "CrawlArgsError";
}

export const CRAWL_FLAGS: Array<{ flag: string; value?: string; help: string }> = [
  { flag: "--seeds", value: "FILE", help: "seed URLs, one per line (blank lines and # comments ignored)" },
  { flag: "--out", value: "DIR", help: "all state and output; running again with the same DIR resumes (required)" },
  { flag: "--max-pages", value: "N", help: "stop cleanly after N page responses" },
  { flag: "--max-duration", value: "DURATION", help: "stop cleanly after this long (90s, 2h)" },
  { flag: "--proxy", value: "URL", help: "HTTP forward proxy for every request (default: HTTP_PROXY / HTTPS_PROXY)" },
  { flag: "--max-in-flight", value: "N", help: "fetches running at once, each to a different host (default 512)" },
  { flag: "--max-queued", value: "N", help: "frontier size limit; beyond it the lowest-priority URLs are dropped (default 50000000)" },
  { flag: "--confirm-all-seen", help: "confirm every Bloom 'maybe seen' in the exact store, not only home pages" },
  {
    flag: "--fetch-threads",
    value: "N",
    help: "threads running the fetch path (HTTP, parse, WARC) beside the frontier's (default 2; 0: all in one thread)",
  },
  { flag: "--quiet", help: "no progress line, only the summary" },
];

export function crawlUsage(): string {
  const own = CRAWL_FLAGS.map((f) => `  ${`${f.flag}${f.value ? ` ${f.value}` : ""}`.padEnd(34)} ${f.help}`);
  const policy = POLICY_FIELDS.map((f) => usageLine(f, f.kind === "switch" ? "" : "VALUE", 34));
  const warc = WARC_ROWS.map((r) => usageLine(r, r.kind.toUpperCase(), 34));
  return [
    "usage: crawl [URL...] [--seeds FILE] --out DIR [options]",
    "       crawl stats --out DIR",
    "",
    "Crawls from the seed URLs, politely, into WARC files under DIR, with every role in this one process.",
    "Stop with Ctrl-C; run the same command again to resume.",
    "",
    "options:",
    ...own,
    "",
    "WARC files and their upload to object storage (flag > env > default):",
    ...warc,
    "",
    "policy (flag > env > default):",
    ...policy,
    "",
  ].join("\n");
}

export function parseCrawlArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CrawlArgs {
  const seeds: string[] = [];
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const policyFlags: Record<string, string> = {};
  const policyFlagNames = new Set(POLICY_FIELDS.map((f) => f.flag));
  const warcFlagNames = new Set(WARC_ROWS.map((r) => r.flag));
  const warcFlags = new Map<string, string>();
  // A policy switch (`--allow-private-addresses`) may stand alone, meaning true, as in every role's table.
  const policySwitches = new Set(POLICY_FIELDS.filter((f) => f.kind === "switch").map((f) => f.flag));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      seeds.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const own = CRAWL_FLAGS.find((f) => f.flag === name);
    if (!own && !policyFlagNames.has(name) && !warcFlagNames.has(name))
      throw new CrawlArgsError(`unknown option ${name} (see crawl --help)`);
    if (own && !own.value) {
      if (eq > 0) throw new CrawlArgsError(`${name} takes no value`);
      switches.add(name);
      continue;
    }
    if (policySwitches.has(name) && eq < 0) {
      policyFlags[name] = "true";
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new CrawlArgsError(`${name} needs a value`);
    if (own) values.set(name, value);
    else if (warcFlagNames.has(name)) warcFlags.set(name, value);
    else policyFlags[name] = value;
  }
  const out = values.get("--out");
  if (!out) throw new CrawlArgsError("--out DIR is required (it holds the crawl's state and output)");
  let policy: PolicyConfig;
  try {
    policy = resolvePolicy(policyFlags, env);
  } catch (error) {
    throw new CrawlArgsError((error as Error).message);
  }
  const roll = readFields(WARC_ROLL_SETTINGS, warcFlags, env);
  const s3 = readFields(S3_UPLOAD_SETTINGS, warcFlags, env);
  const problems = [...roll.problems, ...s3.problems];
  const upload = resolveS3Target(s3.values, problems);
  if (problems.length > 0) throw new CrawlArgsError(problems.join("; "));
  return {
    seeds,
    seedsFile: values.get("--seeds"),
    out,
    maxPages: optionalInt(values.get("--max-pages"), "--max-pages", 1),
    maxDurationMs: optionalDuration(values.get("--max-duration"), "--max-duration"),
    proxy: values.get("--proxy") ?? env["HTTP_PROXY"] ?? env["http_proxy"] ?? env["HTTPS_PROXY"] ?? env["https_proxy"],
    maxInFlight: optionalInt(values.get("--max-in-flight"), "--max-in-flight", 1) ?? 512,
    maxQueued: optionalInt(values.get("--max-queued"), "--max-queued", 1) ?? 50_000_000,
    confirmAllSeen: switches.has("--confirm-all-seen"),
    fetchThreads: optionalInt(values.get("--fetch-threads"), "--fetch-threads", 0) ?? 2,
    quiet: switches.has("--quiet"),
    warc: { rollBytes: roll.values.warcRollSize, rollAgeMs: roll.values.warcRollAge, uploadDrainMs: roll.values.warcUploadDrain, upload },
    policy,
  };
}

function optionalInt(raw: string | undefined, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new CrawlArgsError(`${flag} must be a whole number >= ${min}, got "${raw}"`);
  return Number(raw);
}

function optionalDuration(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  try {
    const ms = parseDuration(raw);
    if (ms <= 0) throw new Error("must be positive");
    return ms;
  } catch (error) {
    throw new CrawlArgsError(`${flag}: ${(error as Error).message}`);
  }
}

/** Reads seed lines: one URL per line, blank lines and `#` comments ignored. */
export function seedLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith("#"));
}
