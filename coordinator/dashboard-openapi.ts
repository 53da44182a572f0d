/**
 * The OpenAPI schema of `GET /v1/dashboard` (core/dashboard's Dashboard), kept beside the admin API's
 * document that includes it. Every object lists all its properties as required: a test compares the
 * answers of the coordinator and of `crawl --http` with it, key by key, so the two sources and this
 * description cannot drift apart.
 */

const int = { type: "integer" };
const num = { type: "number" };
const str = { type: "string" };
const bool = { type: "boolean" };

/** An object schema whose every property is required. */
function object(properties: Record<string, object>): object {
  return { type: "object", required: Object.keys(properties), properties };
}

const histogram = object({
  bounds: { type: "array", items: num, description: "bucket upper bounds, ascending, +Inf implied" },
  counts: { type: "array", items: int, description: "per bucket, not cumulative; one more than bounds" },
  count: int,
  sum: num,
});

export const HOST_ROW_SCHEMA = {
  type: "object",
  required: [
    "host",
    "queued",
    "inFlight",
    "gapMs",
    "nextAllowedAt",
    "throttleMs",
    "throttles",
    "fetchMs",
    "fetches",
    "lastStatus",
    "lastError",
    "robotsVerdict",
    "robotsExpiresAt",
  ],
  properties: {
    host: str,
    node: { type: "string", description: "the node holding the host" },
    region: str,
    queued: int,
    inFlight: bool,
    gapMs: int,
    nextAllowedAt: { type: "integer", description: "epoch ms of its next allowed fetch" },
    throttleMs: { type: "integer", description: "429/503 back-off in force, 0 when none" },
    throttles: int,
    fetchMs: { type: "integer", description: "recent fetch duration (moving average)" },
    fetches: int,
    lastStatus: int,
    lastError: str,
    robotsVerdict: { enum: ["parse", "allow-all", "disallow-all", "unknown"] },
    robotsExpiresAt: { type: "integer", description: "epoch ms when robots.txt is read again" },
  },
};

const hostList = { type: "array", items: { $ref: "#/components/schemas/HostRow" } };

export const DASHBOARD_SCHEMA = object({
  source: { enum: ["cluster", "crawl"] },
  at: int,
  totals: object({
    pages: int,
    bytes: int,
    queued: int,
    scheduled: int,
    inFlight: int,
    errors: int,
    pagesPerSecond: num,
    bytesPerSecond: num,
  }),
  rates: { type: "array", items: object({ at: int, pagesPerSecond: num, bytesPerSecond: num }) },
  outcomes: object({
    ok: int,
    "3xx": int,
    "4xx": int,
    "5xx": int,
    timeout: int,
    dns: int,
    "other-error": int,
    "robots-denied": int,
    trap: int,
    duplicate: int,
  }),
  nodes: {
    type: "array",
    items: object({
      id: str,
      role: { enum: ["coordinator", "frontier", "fetcher", "crawl"] },
      region: str,
      state: { enum: ["live", "draining", "dead", "left", "running"] },
      runtime: str,
      partitions: int,
      inFlight: int,
      queued: int,
      scheduled: int,
      activeHosts: int,
      heartbeatAgeMs: int,
      pages: int,
    }),
  },
  ring: {
    oneOf: [
      { type: "null" },
      object({
        epoch: int,
        partitions: int,
        regions: {
          type: "array",
          items: object({
            region: str,
            owners: { type: "array", items: str },
            moves: { type: "array", items: object({ partition: int, from: str, to: str }) },
          }),
        },
      }),
    ],
  },
  hosts: object({
    slowest: hostList,
    throttled: hostList,
    parked: hostList,
    addresses: {
      type: "array",
      description:
        "The busiest servers of the cap per address (ip:ADDRESS, or domain:REGISTRABLE-DOMAIN through a proxy), summed over the processes that take passes, most waits first. `waits` are passes that had to wait (at most `passes`); `givenBack` are requests that got no pass in time and were not made, counted there alone; `longestWaitMs` is the longest of either",
      items: object({ server: str, passes: int, waits: int, givenBack: int, longestWaitMs: int, since: int, lastAt: int }),
    },
  }),
  politeness: object({
    activeHosts: int,
    throttledHosts: int,
    parkedHosts: int,
    largestGapMs: int,
    largestGapHost: str,
    waitedForGap: int,
    waitedForServer: int,
    givenBackForServer: int,
  }),
  rendering: object({ poolSize: int, rendered: int, failed: int, asReceived: int, linksFound: int, browserRestarts: int }),
  jobs: object({
    rows: {
      type: "array",
      description: "the first 50 crawl jobs, default first, then in order of creation",
      items: object({
        id: str,
        state: { enum: ["running", "paused", "done", "cancelled"] },
        pages: int,
        maxPages: { type: "integer", description: "0: no limit" },
        queued: int,
        errors: int,
        reason: { oneOf: [{ type: "null" }, { enum: ["max-pages", "max-duration", "cancelled", "finished"] }] },
      }),
    },
    more: { type: "integer", description: "jobs beyond the rows shown" },
  }),
  feeds: object({ read: int, items: int, notModified: int }),
  histograms: { type: "object", additionalProperties: object({ count: int, sum: num, p50: num, p90: num, p99: num }) },
  distributions: { type: "object", additionalProperties: histogram },
});
