/**
 * The simulated web of the fleet model: `hosts` hosts with a heavy-tailed number of pages due each day
 * (Pareto weights, tail index `alpha`, scaled so the day's pages sum to the target), spread over top-level
 * domains whose mix sends about a quarter of the hosts to the European region under the Terraform example's
 * region rules, each host with its own speed (log-normal median fetch time) and health (most answer, some
 * fail often, a few barely answer), and a few with a robots.txt Crawl-delay. Every figure here is an
 * assumption about the web, not a measurement of ours: docs/sizing.md lists them. A host's region and
 * partition come from the project's own code (core/addressing), as a fetch node or the coordinator works
 * them out.
 */
import { addressOf } from "../../core/addressing/index.ts";
import type { RegionRules } from "../../core/cluster/index.ts";
import { Random } from "./random.ts";

/** The Terraform example's rule (deploy/terraform/examples/multi-region): these suffixes are crawled from eu-west-1. */
export const EU_SUFFIXES = [
  ".eu",
  ".de",
  ".fr",
  ".uk",
  ".nl",
  ".es",
  ".it",
  ".pl",
  ".se",
  ".ch",
  ".at",
  ".be",
  ".dk",
  ".fi",
  ".no",
  ".ie",
  ".pt",
  ".cz",
];
export const REGION_RULES: RegionRules = {
  defaultRegion: "us-east-1",
  rules: EU_SUFFIXES.map((suffix) => ({ suffix, region: "eu-west-1" })),
};
export const REGIONS = ["us-east-1", "eu-west-1"] as const;

/** Share of hosts per top-level domain (an assumption, roughly the shape of a broad crawl's host list). */
const TLDS: ReadonlyArray<[string, number]> = [
  ["com", 46],
  ["org", 5],
  ["net", 4],
  ["ru", 3],
  ["br", 2],
  ["jp", 2],
  ["io", 1],
  ["info", 1],
  ["in", 1],
  ["au", 1],
  ["ca", 1],
  ["de", 6],
  ["co.uk", 4],
  ["fr", 3],
  ["nl", 2],
  ["it", 2],
  ["es", 1.5],
  ["pl", 1.5],
  ["se", 1],
  ["ch", 1],
  ["eu", 0.5],
  ["at", 0.5],
  ["be", 0.5],
  ["dk", 0.5],
  ["fi", 0.5],
  ["no", 0.5],
  ["pt", 0.4],
  ["cz", 0.4],
  ["ie", 0.3],
];

/** How a host answers: the share of its fetches that end each way. */
export interface HealthClass {
  name: string;
  /** Share of hosts of this class. */
  share: number;
  /** Per fetch: connection refused or reset (fast), connect timeout (5 s), response timeout (20 s). */
  refused: number;
  connectTimeout: number;
  timeout: number;
  /** Per fetch: 5xx other than 503, 429/503 (half of them with a Retry-After of 60 s), 404. */
  serverError: number;
  throttled: number;
  notFound: number;
}

export const HEALTH: readonly HealthClass[] = [
  {
    name: "good",
    share: 0.92,
    refused: 0.002,
    connectTimeout: 0.001,
    timeout: 0.001,
    serverError: 0.003,
    throttled: 0.002,
    notFound: 0.04,
  },
  { name: "flaky", share: 0.06, refused: 0.03, connectTimeout: 0.02, timeout: 0.02, serverError: 0.05, throttled: 0.03, notFound: 0.06 },
  { name: "bad", share: 0.02, refused: 0.3, connectTimeout: 0.2, timeout: 0.1, serverError: 0.1, throttled: 0.02, notFound: 0.05 },
];

export interface WebShape {
  hosts: number;
  /** Pages due across all hosts in a day (the target). */
  pagesPerDay: number;
  /** Pareto tail index of pages per host (lower: heavier tail). */
  alpha: number;
  /** Median of the hosts' median fetch times, ms, and the log-normal spread across hosts and across fetches. */
  medianFetchMs: number;
  hostSpeedSigma: number;
  fetchSigma: number;
  /** Share of hosts whose robots.txt sets a Crawl-delay (2-10 s). */
  crawlDelayShare: number;
  partitions: number;
  seed: number;
}

export const DEFAULT_WEB: Omit<WebShape, "hosts" | "pagesPerDay" | "partitions"> = {
  alpha: 1.2,
  medianFetchMs: 250,
  hostSpeedSigma: 0.6,
  fetchSigma: 0.5,
  crawlDelayShare: 0.03,
  seed: 26,
};

/** The hosts, column by column (typed arrays: 5 million hosts in about 150 MB). */
export interface Population {
  shape: WebShape;
  names: string[];
  /** Pages due per day. */
  pagesPerDay: Float64Array;
  /** Index into REGIONS. */
  region: Uint8Array;
  partition: Uint32Array;
  medianFetchMs: Float32Array;
  /** Index into HEALTH. */
  health: Uint8Array;
  crawlDelayMs: Uint32Array;
}

export function buildPopulation(shape: WebShape): Population {
  const rnd = new Random(shape.seed);
  const n = shape.hosts;
  const tldTotal = TLDS.reduce((a, [, w]) => a + w, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const [, w] of TLDS) cumulative.push((acc += w / tldTotal));
  const pick = (u: number) => {
    let i = 0;
    while (i < cumulative.length - 1 && u >= cumulative[i]!) i++;
    return TLDS[i]![0];
  };
  const names = new Array<string>(n);
  const weights = new Float64Array(n);
  const region = new Uint8Array(n);
  const partition = new Uint32Array(n);
  const medianFetchMs = new Float32Array(n);
  const health = new Uint8Array(n);
  const crawlDelayMs = new Uint32Array(n);
  let weightSum = 0;
  for (let i = 0; i < n; i++) {
    const name = `site${i}.${pick(rnd.next())}`;
    names[i] = name;
    const address = addressOf(name, { rules: REGION_RULES, partitions: shape.partitions });
    region[i] = REGIONS.indexOf(address.region as (typeof REGIONS)[number]);
    partition[i] = address.partition;
    const w = rnd.pareto(shape.alpha);
    weights[i] = w;
    weightSum += w;
    medianFetchMs[i] = Math.min(15_000, rnd.logNormal(shape.medianFetchMs, shape.hostSpeedSigma));
    const u = rnd.next();
    health[i] = u < HEALTH[0]!.share ? 0 : u < HEALTH[0]!.share + HEALTH[1]!.share ? 1 : 2;
    crawlDelayMs[i] = rnd.next() < shape.crawlDelayShare ? 2000 + Math.floor(rnd.next() * 8) * 1000 : 0;
  }
  const pagesPerDay = new Float64Array(n);
  for (let i = 0; i < n; i++) pagesPerDay[i] = (weights[i]! / weightSum) * shape.pagesPerDay;
  return { shape, names, pagesPerDay, region, partition, medianFetchMs, health, crawlDelayMs };
}
