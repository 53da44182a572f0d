/**
 * Moving one partition between frontier nodes: everything the old owner's store holds for it (queued URLs
 * in order, each host's politeness state, robots.txt and sitemaps, each URL's fetch state and schedule, the
 * scope roots its seeds made) is read out in chunks and written into the new owner's store. The same chunks
 * are a replica's snapshot of the partition (frontier-node/replication). A queued or scheduled URL keeps its
 * kind (page or media file) either way. The transport (gRPC streaming) is the frontier node's; this module
 * only reads and writes stores. Import is idempotent, so a handoff retried after a broken stream
 * leaves one copy; a chunk with a malformed host state is refused whole (InvalidArgumentError).
 */
import type { Priority, UrlKind } from "../../core/model/index.ts";
import { InvalidArgumentError } from "../../core/errors/index.ts";
import type { FrontierStore, QueuedUrl, StoredRobots, UrlRow } from "./store/frontier-store.ts";
import { parsePersistedHost, type PersistedHost } from "./store/persisted-host.ts";
import { parseSitemapRows, type SitemapRow } from "./store/sitemap-table.ts";

export interface HandoffChunk {
  partition: number;
  queued: QueuedUrl[];
  hosts: Array<{ host: string; stateJson: string; robotsJson: string; sitemapsJson: string }>;
  urls: Array<{ url: string; stateJson: string }>;
  /** The scope roots the partition's seeds made (in the first chunk; absent or empty in the others). */
  scopeRoots?: string[];
  /** The partition's crawl job counters (in the first chunk; absent or empty in the others). */
  jobCounts?: Array<{ job: number; pages: number; errors: number }>;
}

interface UrlDocument {
  row: UrlRow;
  /** `kind` is absent in documents of nodes older than media fetching: a page. */
  scheduled?: { dueAt: number; priority: Priority; kind?: UrlKind; job?: number };
}

/** Reads a partition out of a store, `chunkSize` rows of each kind at a time. */
export function* exportPartition(store: FrontierStore, partition: number, chunkSize = 2_000): Generator<HandoffChunk> {
  const hosts = store.hostsInPartition(partition).map((h) => {
    const sitemaps = store.sitemaps.forHost(partition, h.host);
    return {
      host: h.host,
      stateJson: h.state,
      robotsJson: h.robots ? JSON.stringify(h.robots) : "",
      sitemapsJson: sitemaps.length > 0 ? JSON.stringify(sitemaps) : "",
    };
  });
  const scopeRoots = store.scopeRoots.inPartition(partition);
  const jobCounts = store.jobCounts.inPartition(partition);
  if (scopeRoots.length > 0 || jobCounts.length > 0) yield { partition, queued: [], hosts: [], urls: [], scopeRoots, jobCounts };
  for (let i = 0; i < hosts.length; i += chunkSize) {
    yield { partition, queued: [], hosts: hosts.slice(i, i + chunkSize), urls: [] };
  }
  const scheduled = new Map(store.scheduledInPartition(partition).map((s) => [s.url, s] as const));
  for (let afterUrl = ""; ; ) {
    const rows = store.urlsInPartition(partition, afterUrl, chunkSize);
    if (rows.length === 0) break;
    afterUrl = rows.at(-1)!.url;
    const urls = rows.map((row) => {
      const s = scheduled.get(row.url);
      const doc: UrlDocument = {
        row,
        scheduled: s ? { dueAt: s.dueAt, priority: s.priority, kind: s.kind, ...(s.job ? { job: s.job } : {}) } : undefined,
      };
      return { url: row.url, stateJson: JSON.stringify(doc) };
    });
    yield { partition, queued: [], hosts: [], urls };
  }
  for (let after: QueuedUrl | undefined; ; ) {
    const queued = store.queuedInPartition(partition, after, chunkSize);
    if (queued.length === 0) break;
    after = queued.at(-1);
    yield { partition, queued, hosts: [], urls: [] };
  }
}

export interface ImportOptions {
  /**
   * Keep each queued URL's sequence number as the chunk has it (restoring a replica's snapshot, whose later
   * changes name queue rows by it) instead of numbering them behind the store's own (a handoff).
   */
  verbatim?: boolean;
}

/**
 * Writes one chunk into a store (inside one transaction). The rows are another store's, so they are not
 * noted in this store's change journal: the partition's replica already has them (see docs/cluster.md).
 */
export function importChunk(store: FrontierStore, chunk: HandoffChunk, opts: ImportOptions = {}): void {
  store.untracked(() => store.tx(() => importRows(store, chunk, opts)));
}

function importRows(store: FrontierStore, chunk: HandoffChunk, opts: ImportOptions): void {
  for (const h of chunk.hosts) {
    if (h.stateJson) store.saveHost(h.host, chunk.partition, receivedHost(h.host, h.stateJson));
    if (h.robotsJson) store.saveRobots(h.host, chunk.partition, JSON.parse(h.robotsJson) as StoredRobots);
    if (h.sitemapsJson) store.sitemaps.import(receivedSitemaps(h.host, chunk.partition, h.sitemapsJson));
  }
  if (chunk.scopeRoots) store.scopeRoots.add(receivedRoots(chunk.scopeRoots).map((host) => ({ host, partition: chunk.partition })));
  for (const c of chunk.jobCounts ?? []) store.jobCounts.put(chunk.partition, c.job, { pages: c.pages, errors: c.errors });
  for (const u of chunk.urls) {
    const doc = JSON.parse(u.stateJson) as UrlDocument;
    store.importUrl({ ...doc.row, partition: chunk.partition });
    if (doc.scheduled) {
      store.schedule({
        dueAt: doc.scheduled.dueAt,
        priority: doc.scheduled.priority,
        url: doc.row.url,
        host: doc.row.host,
        partition: chunk.partition,
        depth: doc.row.depth,
        kind: doc.scheduled.kind === "media" ? "media" : "page",
        ...(doc.scheduled.job ? { job: doc.scheduled.job } : {}),
      });
    }
  }
  if (opts.verbatim) {
    let maxSeq = 0;
    for (const q of chunk.queued) {
      store.putQueued({ ...q, partition: chunk.partition, kind: q.kind === "media" ? "media" : "page" });
      maxSeq = Math.max(maxSeq, q.seq);
    }
    store.reserveSeq(maxSeq);
  } else {
    // Queued URLs keep their relative order; they get fresh sequence numbers behind the store's own. A
    // chunk received twice (a retried stream) must not queue a URL twice.
    for (const q of chunk.queued) {
      if (store.isQueued(chunk.partition, q.host, q.url)) continue;
      store.enqueue({
        host: q.host,
        partition: chunk.partition,
        priority: q.priority,
        url: q.url,
        depth: q.depth,
        hops: q.hops,
        kind: q.kind,
        ...(q.job ? { job: q.job } : {}),
      });
    }
  }
  store.saveSeq();
}

/** The scope roots another node sent; InvalidArgumentError (the chunk is refused) if they are not host names. */
function receivedRoots(roots: unknown): string[] {
  if (!Array.isArray(roots) || !roots.every((r) => typeof r === "string" && r !== "")) {
    throw new InvalidArgumentError("handoff: the scope roots are not a list of host names");
  }
  return roots as string[];
}

/** A host's sitemaps as another node sent them; InvalidArgumentError (the chunk is refused) if malformed. */
function receivedSitemaps(host: string, partition: number, json: string): SitemapRow[] {
  try {
    return parseSitemapRows(json).map((row) => ({ ...row, host, partition }));
  } catch (error) {
    throw new InvalidArgumentError(`handoff: host ${host}: ${(error as Error).message}`, { cause: error });
  }
}

/** A host's state as another node sent it; InvalidArgumentError (the chunk is refused, nothing written) if malformed. */
function receivedHost(host: string, json: string): PersistedHost {
  try {
    return parsePersistedHost(json);
  } catch (error) {
    throw new InvalidArgumentError(`handoff: host ${host}: ${(error as Error).message}`, { cause: error });
  }
}
