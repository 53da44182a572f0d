/**
 * The vocabulary of a partition's change journal: each write the store makes to a partition's rows, as a
 * small JSON array that says the row's new value (an upsert) or its key (a delete). Every change is
 * idempotent and keyed, so applying a batch twice leaves the same rows as applying it once, and applying a
 * partition's batches in order onto a copy of its rows (even a copy read while those batches were being
 * written: a fuzzy snapshot) ends with the rows of the store that wrote them. `applyChanges` is that replay;
 * it refuses a batch it cannot read, whole, before writing anything.
 */
import type { Priority } from "../../../core/model/index.ts";
import type { FrontierStore, QueuedUrl, ScheduledUrl, StoredRobots, UrlRow, UrlStatus } from "./frontier-store.ts";
import { parsePersistedHost } from "./persisted-host.ts";
import { parseFeedSchedule, type SitemapState } from "./sitemap-table.ts";
import type { UrlRowColumns } from "./url-table.ts";

/** A sitemap row's columns as every shape of the journal's `sm` change starts with them (sitemap-table.ts). */
type SitemapRowColumns = [
  host: string,
  url: string,
  grants: string[],
  fromIndex: 0 | 1,
  depth: number,
  hops: number,
  state: SitemapState,
  offeredAt: number,
  readAt: number,
];

/** One write to a partition's rows. The partition itself is the batch's. */
export type Change =
  /**
   * queued: a URL appended to its host's queue, with the store's sequence number; a media file
   * (--fetch-media) ends with "media", a page with nothing (the shape of journals written before media);
   * a URL of a crawl job other than `default` ends with its kind ("page" or "media") and the job's number.
   */
  | ["q", host: string, priority: Priority, seq: number, url: string, depth: number, hops: number]
  | ["q", host: string, priority: Priority, seq: number, url: string, depth: number, hops: number, kind: "media"]
  | ["q", host: string, priority: Priority, seq: number, url: string, depth: number, hops: number, kind: "page" | "media", job: number]
  /** dequeued: a queue row removed by its key. */
  | ["d", host: string, priority: Priority, seq: number]
  /** a URL's whole state row; with the URL's captures (captures.ts), or ending at its note (journals before captures). */
  | ["u", ...UrlRowColumns]
  | ["u", ...UrlRowColumns, captures: string]
  /** a URL's state (and note) set, its row created when missing. */
  | ["us", url: string, host: string, state: UrlStatus, depth: number, note: string | null]
  /** a URL scheduled for a retry or refetch; a media file's ends with "media", as a queued one's. */
  | ["s", url: string, host: string, priority: Priority, depth: number, dueAt: number]
  | ["s", url: string, host: string, priority: Priority, depth: number, dueAt: number, kind: "media"]
  | ["s", url: string, host: string, priority: Priority, depth: number, dueAt: number, kind: "page" | "media", job: number]
  /** a URL taken off the schedule. */
  | ["x", url: string]
  /** a host's politeness state (the hosts table's JSON). */
  | ["h", host: string, stateJson: string]
  /** a host's robots.txt verdict. */
  | ["r", host: string, verdict: StoredRobots["verdict"], body: string | null, fetchedAt: number, expiresAt: number]
  /** a sitemap's whole row (sitemap-table.ts). */
  | ["sm", ...SitemapRowColumns]
  /** a feed's sitemap row, with its reread schedule (JSON) and when it is due (0: not waiting). */
  | ["sm", ...SitemapRowColumns, feed: string, dueAt: number]
  /** a sitemap or feed row of a job other than default: its schedule (null for a sitemap), when due, its job. */
  | ["sm", ...SitemapRowColumns, feed: string | null, dueAt: number, job: number]
  /** a scope root made by a seed of the partition (scope-root-table.ts). */
  | ["sr", host: string]
  /** a crawl job's counters in the partition, whole (job-count-table.ts). */
  | ["jc", job: number, pages: number, errors: number];

/** The change that says a queue row: its URL kind is part of it (a media URL stays media on a replica). */
export function queuedChange(q: QueuedUrl): Change {
  const c: Change = ["q", q.host, q.priority, q.seq, q.url, q.depth, q.hops];
  if (q.job) return [...c, q.kind, q.job];
  return q.kind === "media" ? [...c, "media"] : c;
}

/** The change that says a schedule row, its URL kind with it. */
export function scheduledChange(s: ScheduledUrl): Change {
  const c: Change = ["s", s.url, s.host, s.priority, s.depth, s.dueAt];
  if (s.job) return [...c, s.kind, s.job];
  return s.kind === "media" ? [...c, "media"] : c;
}

export function urlRowChange(row: UrlRow): Change {
  const c: Change = [
    "u",
    row.url,
    row.host,
    row.state,
    row.depth,
    row.failures,
    row.lastStatus,
    row.lastFetchedAt,
    row.refetchMs,
    row.etag,
    row.lastModified,
    row.fingerprint,
    row.simhash,
    row.changedLastVisit ? 1 : 0,
    row.note,
  ];
  return row.captures ? [...c, row.captures] : c;
}

/** A batch that is not a list of known changes (a damaged or foreign message). */
export class BadChangeBatchError extends Error {
  override readonly name = "BadChangeBatchError";
}

/**
 * Applies one partition's batch of changes to `store`, in order, in one transaction and without noting
 * them in the store's own journal (they are someone else's). Throws BadChangeBatchError, having written
 * nothing, when a change is malformed. Returns the highest queue sequence number written (0: none), which
 * the caller reserves in the store so its own next URLs sort behind.
 */
export function applyChanges(store: FrontierStore, partition: number, changes: readonly unknown[]): number {
  const checked = changes.map((c, i) => checkChange(c, i));
  let maxSeq = 0;
  store.untracked(() =>
    store.tx(() => {
      for (const c of checked) {
        switch (c[0]) {
          case "q":
            store.putQueued({
              partition,
              host: c[1],
              priority: c[2],
              seq: c[3],
              url: c[4],
              depth: c[5],
              hops: c[6],
              kind: c[7] === "media" ? "media" : "page",
              ...(c[8] ? { job: c[8] } : {}),
            });
            maxSeq = Math.max(maxSeq, c[3]);
            break;
          case "d":
            store.dequeue({ partition, host: c[1], priority: c[2], seq: c[3] });
            break;
          case "u":
            store.importUrl({
              partition,
              url: c[1],
              host: c[2],
              state: c[3],
              depth: c[4],
              failures: c[5],
              lastStatus: c[6],
              lastFetchedAt: c[7],
              refetchMs: c[8],
              etag: c[9],
              lastModified: c[10],
              fingerprint: c[11],
              simhash: c[12],
              changedLastVisit: c[13] === 1,
              note: c[14],
              ...(c[15] ? { captures: c[15] } : {}),
            });
            break;
          case "us":
            store.setUrlState({ partition, url: c[1], host: c[2], depth: c[4] }, c[3], c[5] ?? undefined);
            break;
          case "s":
            store.schedule({
              partition,
              url: c[1],
              host: c[2],
              priority: c[3],
              depth: c[4],
              dueAt: c[5],
              kind: c[6] === "media" ? "media" : "page",
              ...(c[7] ? { job: c[7] } : {}),
            });
            break;
          case "x":
            store.unschedule(partition, c[1]);
            break;
          case "h":
            store.saveHost(c[1], partition, parsePersistedHost(c[2]));
            break;
          case "r":
            store.saveRobots(c[1], partition, { verdict: c[2], body: c[3] ?? undefined, fetchedAt: c[4], expiresAt: c[5] });
            break;
          case "sm":
            store.sitemaps.import([
              {
                partition,
                host: c[1],
                url: c[2],
                grants: c[3],
                fromIndex: c[4] === 1,
                depth: c[5],
                hops: c[6],
                state: c[7],
                offeredAt: c[8],
                readAt: c[9],
                ...(c.length > 10 && c[10] !== null
                  ? { feed: parseFeedSchedule(c[10] as string), dueAt: (c[11] as number | undefined) ?? 0 }
                  : {}),
                ...(c.length > 12 && (c[12] as number) > 0 ? { job: c[12] as number } : {}),
              },
            ]);
            break;
          case "sr":
            store.scopeRoots.add([{ host: c[1], partition }]);
            break;
          case "jc":
            store.jobCounts.put(partition, c[1], { pages: c[2], errors: c[3] });
            break;
        }
      }
      if (maxSeq > 0) {
        store.reserveSeq(maxSeq);
        store.saveSeq();
      }
    }),
  );
  return maxSeq;
}

const str = (v: unknown) => typeof v === "string";
const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const priority = (v: unknown) => v === 1 || v === 2 || v === 3;
const VERDICTS = new Set(["allow-all", "disallow-all", "parse"]);
const SITEMAP_STATES = new Set(["pending", "read", "failed", "disallowed"]);
const strings = (v: unknown) => Array.isArray(v) && v.every(str);
const feedJson = (v: unknown) => {
  if (!str(v)) return false;
  try {
    parseFeedSchedule(v as string);
    return true;
  } catch {
    return false;
  }
};

/**
 * The shape of each kind: its arity and a check per field after the kind. A kind in OPTIONAL_TAIL may also
 * carry more fields, checked by its entries there (the URL kind and crawl job of queue and schedule rows, a URL row's captures).
 */
const SHAPES: Record<Change[0], ReadonlyArray<(v: unknown) => boolean>> = {
  q: [str, priority, num, str, num, num],
  d: [str, priority, num],
  u: [str, str, str, num, num, num, num, num, strOrNull, strOrNull, strOrNull, strOrNull, (v) => v === 0 || v === 1, strOrNull],
  us: [str, str, str, num, strOrNull],
  s: [str, str, priority, num, num],
  x: [str],
  h: [
    str,
    (v) => {
      if (!str(v)) return false;
      try {
        parsePersistedHost(v as string);
        return true;
      } catch {
        return false;
      }
    },
  ],
  r: [str, (v) => VERDICTS.has(v as string), strOrNull, num, num],
  sm: [str, str, strings, (v) => v === 0 || v === 1, num, num, (v) => SITEMAP_STATES.has(v as string), num, num],
  sr: [str],
  jc: [num, num, num],
};

/** The fields a kind may carry after its shape, in order, each optional from the first absent one on. */
const OPTIONAL_TAIL: Partial<Record<Change[0], ReadonlyArray<(v: unknown) => boolean>>> = {
  q: [(v) => v === "media" || v === "page", num],
  s: [(v) => v === "media" || v === "page", num],
  u: [str],
  sm: [(v) => v === null || feedJson(v), num, (v) => Number.isInteger(v) && (v as number) >= 0],
};

function checkChange(c: unknown, i: number): Change {
  if (!Array.isArray(c) || typeof c[0] !== "string" || !(c[0] in SHAPES)) {
    throw new BadChangeBatchError(`change ${i} is not a known change: ${JSON.stringify(c)?.slice(0, 120)}`);
  }
  const shape = SHAPES[c[0] as Change[0]];
  const tail = OPTIONAL_TAIL[c[0] as Change[0]] ?? [];
  const extra = c.length - shape.length - 1;
  const tailOk = extra >= 0 && extra <= tail.length && tail.slice(0, extra).every((ok, j) => ok(c[shape.length + 1 + j]));
  if (!tailOk || !shape.every((ok, j) => ok(c[j + 1]))) {
    throw new BadChangeBatchError(`change ${i} (${c[0]}) is malformed: ${JSON.stringify(c).slice(0, 200)}`);
  }
  return c as Change;
}
