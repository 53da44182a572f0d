/**
 * The queue table of the frontier store: each host's back queue, ordered by (priority, seq) within
 * (partition, host), so the head of a host is one index lookup. A head handed to a fetcher stays here until
 * its result is committed, so a crash refetches it. The sequence counter lives here too: it only grows, is
 * saved in `meta` inside the transactions that enqueue, and is never below the largest queued seq.
 *
 * Cost: one WITHOUT ROWID row per queued URL (its URL text relative to its host plus about 20 bytes), and
 * one random B-tree insert per admitted URL; admissions are written ROWS_PER_INSERT to a statement.
 *
 * A row's key already names the host, so its `url` column does not repeat it (schema version 6): a URL that
 * starts with `http://` + host + `/` is stored from that `/` on, one that starts with `https://` + host + `/`
 * as `~` and the same path, any other URL whole (a queued URL is absolute: it starts with its scheme, never
 * with `/` or `~`). The host must match exactly up to the `/`, so a host key with a port shortens only URLs
 * with that port. Rows written by a store before version 6 hold whole URLs and are read as they are; a URL
 * is looked up in both forms. Only this file sees the stored form: everything it returns is whole URLs.
 */
import type { Database } from "bun:sqlite";
import type { Priority, UrlKind } from "../../../core/model/index.ts";
import { queuedChange, type Change } from "./changes.ts";
import { QUEUE_DROP_ORDER } from "./schema.ts";
import { countOf, KIND_NAME, kindCode, MultiRowInsert, ROWS_PER_INSERT, type Count } from "./sql.ts";

export interface QueuedUrl {
  host: string;
  partition: number;
  priority: Priority;
  seq: number;
  url: string;
  depth: number;
  hops: number;
  /** A page, or a media file a page named (--fetch-media). */
  kind: UrlKind;
  /** The crawl job's number (core/jobs); absent or 0: job `default`. */
  job?: number;
}

/** Where a queued URL sits: its key in the queue. */
export type QueuePlace = Pick<QueuedUrl, "partition" | "host" | "priority" | "seq">;

const SLASH = 47;

/** A queued URL as its row stores it: relative to its host when it is on it (see above). */
function storedUrl(host: string, url: string): string {
  const https = url.startsWith("https://");
  if (!https && !url.startsWith("http://")) return url;
  const at = https ? 8 : 7;
  if (!url.startsWith(host, at) || url.charCodeAt(at + host.length) !== SLASH) return url;
  const path = url.slice(at + host.length);
  return https ? `~${path}` : path;
}

/**
 * A row's whole URL, as the column `url` (what `storedUrl` undoes; a whole URL is read as it is): every read
 * of a queue row selects this instead of the column.
 */
const WHOLE_URL =
  "CASE substr(url, 1, 1) WHEN '/' THEN 'http://' || host || url WHEN '~' THEN 'https://' || host || substr(url, 2) ELSE url END AS url";

const QUEUE_COLUMNS = `host, partition, priority, seq, ${WHOLE_URL}, depth, hops, ${KIND_NAME}, job`;

function prepare(db: Database) {
  return {
    head: db.query<QueuedUrl, [partition: number, host: string]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND host = ? ORDER BY priority, seq LIMIT 1`,
    ),
    // The head among URLs of jobs not in a JSON list: walks the host's queue in order past the held jobs' rows.
    headExcept: db.query<QueuedUrl, [partition: number, host: string, heldJobs: string]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND host = ? AND job NOT IN (SELECT value FROM json_each(?))
       ORDER BY priority, seq LIMIT 1`,
    ),
    headOfJob: db.query<QueuedUrl, [partition: number, host: string, job: number]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND host = ? AND job = ? ORDER BY priority, seq LIMIT 1`,
    ),
    jobRows: db.query<QueuePlace & { url: string }, [job: number, limit: number]>(
      `SELECT partition, host, priority, seq, ${WHOLE_URL} FROM queue INDEXED BY queue_job WHERE job = ? AND job != 0 LIMIT ?`,
    ),
    dequeue: db.query<never, [partition: number, host: string, priority: Priority, seq: number]>(
      "DELETE FROM queue WHERE partition = ? AND host = ? AND priority = ? AND seq = ?",
    ),
    urlAt: db.query<{ url: string }, [partition: number, host: string, priority: Priority, seq: number]>(
      `SELECT ${WHOLE_URL} FROM queue WHERE partition = ? AND host = ? AND priority = ? AND seq = ?`,
    ),
    // The URL as this store writes it and whole, as a store before version 6 wrote it.
    queuedUrl: db.query<{ x: 1 }, [partition: number, host: string, stored: string, url: string]>(
      "SELECT 1 AS x FROM queue WHERE partition = ? AND host = ? AND url IN (?, ?) LIMIT 1",
    ),
    hostCounts: db.query<{ host: string; n: number }, []>("SELECT host, COUNT(*) AS n FROM queue GROUP BY partition, host"),
    hostCountsIn: db.query<{ host: string; n: number }, [partition: number]>(
      "SELECT host, COUNT(*) AS n FROM queue WHERE partition = ? GROUP BY host",
    ),
    hostCount: db.query<Count, [partition: number, host: string]>("SELECT COUNT(*) AS n FROM queue WHERE partition = ? AND host = ?"),
    total: db.query<Count, []>("SELECT COUNT(*) AS n FROM queue"),
    // The jobs of the hosts that have URLs of jobs other than default, read from the partial index queue_job
    // alone (its entries carry the primary key, host included): nothing to read for a crawl without jobs.
    hostJobs: db.query<{ host: string; job: number; n: number }, []>(
      "SELECT host, job, COUNT(*) AS n FROM queue INDEXED BY queue_job WHERE job != 0 GROUP BY host, job",
    ),
    // For one partition: the jobs present, one seek each (the index is (job, partition)), then that job's
    // rows of the partition alone, so a partition's load reads its own job rows, not the store's.
    nextJob: db.query<{ job: number }, [after: number]>(
      "SELECT job FROM queue INDEXED BY queue_job WHERE job > ? AND job != 0 ORDER BY job LIMIT 1",
    ),
    hostsOfJobIn: db.query<{ host: string; n: number }, [job: number, partition: number]>(
      "SELECT host, COUNT(*) AS n FROM queue INDEXED BY queue_job WHERE job = ? AND job != 0 AND partition = ? GROUP BY host",
    ),
    anyJobRow: db.query<{ x: 1 }, []>("SELECT 1 AS x FROM queue INDEXED BY queue_job WHERE job != 0 LIMIT 1"),
    // The jobs among one host's first rows (in its key order): a bounded walk.
    jobsOfHost: db.query<{ job: number; n: number }, [partition: number, host: string, limit: number]>(
      "SELECT job, COUNT(*) AS n FROM (SELECT job FROM queue WHERE partition = ? AND host = ? LIMIT ?) GROUP BY job",
    ),
    // Read from the partial index queue_job alone (schema.ts): job default's URLs are not in it.
    byJob: db.query<{ job: number; partition: number; n: number }, []>(
      "SELECT job, partition, COUNT(*) AS n FROM queue INDEXED BY queue_job WHERE job != 0 GROUP BY job, partition",
    ),
    put: db.query<
      never,
      [partition: number, host: string, priority: Priority, seq: number, url: string, depth: number, hops: number, kind: 0 | 1, job: number]
    >("INSERT OR REPLACE INTO queue (partition, host, priority, seq, url, depth, hops, kind, job) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    maxSeq: db.query<Count, []>("SELECT COALESCE(MAX(seq), 0) AS n FROM queue"),
    inPartition: db.query<QueuedUrl, [partition: number, host: string, priority: number, seq: number, limit: number]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND (host, priority, seq) > (?, ?, ?) ORDER BY host, priority, seq LIMIT ?`,
    ),
    anyIn: db.query<{ x: 1 }, [partition: number]>("SELECT 1 AS x FROM queue WHERE partition = ? LIMIT 1"),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM queue WHERE partition = ?"),
  };
}

/**
 * The size limit's drop: the lowest-priority, newest rows, read from `queue_drop_order` by name, so that a
 * store without the index fails at once ("no such index") instead of sorting the whole queue.
 */
const DROP_LOWEST = `DELETE FROM queue INDEXED BY queue_drop_order WHERE (priority, seq) IN
  (SELECT priority, seq FROM queue INDEXED BY queue_drop_order ORDER BY priority DESC, seq DESC LIMIT ?)
  RETURNING partition, host, ${WHOLE_URL}, depth, priority, seq`;

/** The change that says a queue row left (fetched, disallowed, dropped). */
export function dequeueChange(place: QueuePlace): Change {
  return ["d", place.host, place.priority, place.seq];
}

export class QueueTable {
  private readonly s: ReturnType<typeof prepare>;
  private readonly insertMany: MultiRowInsert;
  private next: number;

  constructor(
    private readonly db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
    /** The sequence counter as last saved (0 when never). */
    savedSeq: number,
  ) {
    this.s = prepare(db);
    this.insertMany = new MultiRowInsert(
      db,
      "INSERT OR IGNORE INTO queue (partition, host, priority, seq, url, depth, hops, kind, job) VALUES ",
      "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.next = Math.max(savedSeq, countOf(this.s.maxSeq)) + 1;
  }

  /** The sequence number the next enqueued URL gets (what `meta` saves). */
  get nextSeq(): number {
    return this.next;
  }

  head(partition: number, host: string): QueuedUrl | undefined {
    return this.s.head.get(partition, host) ?? undefined;
  }

  /** The host's first URL of a job not in `heldJobs` (a JSON array of job numbers). */
  headExcept(partition: number, host: string, heldJobs: string): QueuedUrl | undefined {
    return this.s.headExcept.get(partition, host, heldJobs) ?? undefined;
  }

  /** The host's first queued URL of `job` (walks the host's queue in order past other jobs' rows). */
  headOfJob(partition: number, host: string, job: number): QueuedUrl | undefined {
    return this.s.headOfJob.get(partition, host, job) ?? undefined;
  }

  /** Up to `limit` queued URLs of `job` (not `default`), from the index of job rows. */
  jobRows(job: number, limit: number): Array<QueuePlace & { url: string }> {
    return this.s.jobRows.all(job, limit);
  }

  /**
   * Appends URLs to their hosts' queues, in order, behind others of the same priority, one multi-row
   * INSERT per up to ROWS_PER_INSERT of them. Returns each URL's sequence number, or undefined for one that
   * was not added (which a fresh sequence number never collides into; were it to happen, the rows are
   * looked up one by one).
   */
  enqueueMany(items: ReadonlyArray<Omit<QueuedUrl, "seq">>): Array<number | undefined> {
    const seqs: Array<number | undefined> = [];
    for (let from = 0; from < items.length; from += ROWS_PER_INSERT) {
      const chunk = items.slice(from, from + ROWS_PER_INSERT);
      const params: Array<string | number> = [];
      const chunkSeqs: number[] = [];
      for (const item of chunk) {
        const seq = this.next++;
        chunkSeqs.push(seq);
        params.push(
          item.partition,
          item.host,
          item.priority,
          seq,
          storedUrl(item.host, item.url),
          item.depth,
          item.hops,
          kindCode(item.kind),
          item.job ?? 0,
        );
      }
      const changes = this.insertMany.of(chunk.length).run(...params).changes;
      chunk.forEach((item, i) => {
        const seq = chunkSeqs[i]!;
        // All rows went in, none did, or this one did if the row at its key is its own (an ignored row left
        // another's there).
        const added =
          changes === chunk.length || (changes > 0 && this.s.urlAt.get(item.partition, item.host, item.priority, seq)?.url === item.url);
        if (!added) {
          seqs.push(undefined);
          return;
        }
        seqs.push(seq);
        this.note(item.partition, queuedChange({ ...item, seq }));
      });
    }
    return seqs;
  }

  /** Writes a queue row with its own sequence number (a replayed or restored row, kept as its store wrote it). */
  put(item: QueuedUrl): void {
    const url = storedUrl(item.host, item.url);
    this.s.put.run(item.partition, item.host, item.priority, item.seq, url, item.depth, item.hops, kindCode(item.kind), item.job ?? 0);
    this.note(item.partition, queuedChange(item));
  }

  /** Makes the next sequence number larger than `seq` (after rows with another store's numbers came in). */
  reserveSeq(seq: number): void {
    if (seq >= this.next) this.next = seq + 1;
  }

  dequeue(place: QueuePlace): void {
    this.s.dequeue.run(place.partition, place.host, place.priority, place.seq);
    this.note(place.partition, dequeueChange(place));
  }

  /** Whether a URL is in its host's queue (scans that host's queue: for handoff imports, not hot paths). */
  has(partition: number, host: string, url: string): boolean {
    return this.s.queuedUrl.get(partition, host, storedUrl(host, url), url) !== null;
  }

  /** Queued URL counts by host, for every partition or for one. */
  countsByHost(partition?: number): Map<string, number> {
    const out = new Map<string, number>();
    const rows = partition === undefined ? this.s.hostCounts.all() : this.s.hostCountsIn.all(partition);
    for (const row of rows) out.set(row.host, row.n);
    return out;
  }

  /**
   * For each host with URLs of jobs other than default (in `partition`, or the whole store): its queued URLs
   * per job number (default's not included). Reads the job index only.
   */
  jobsByHost(partition?: number): Map<string, Map<number, number>> {
    const out = new Map<string, Map<number, number>>();
    let rows: Array<{ host: string; job: number; n: number }> = [];
    if (partition === undefined) rows = this.s.hostJobs.all();
    else
      for (let job = this.s.nextJob.get(0)?.job; job !== undefined; job = this.s.nextJob.get(job)?.job)
        for (const r of this.s.hostsOfJobIn.all(job, partition)) rows.push({ ...r, job });
    for (const row of rows) {
      let jobs = out.get(row.host);
      if (!jobs) out.set(row.host, (jobs = new Map()));
      jobs.set(row.job, row.n);
    }
    return out;
  }

  /** Whether any URL of a job other than default is queued (one probe of the job index). */
  hasJobRows(): boolean {
    return this.s.anyJobRow.get() !== null;
  }

  /** The queued URLs per job (default's too) among the host's first `limit` rows; empty when it has none. */
  jobsOfHost(partition: number, host: string, limit: number): Map<number, number> {
    return new Map(this.s.jobsOfHost.all(partition, host, limit).map((r) => [r.job, r.n]));
  }

  countForHost(partition: number, host: string): number {
    return countOf(this.s.hostCount, partition, host);
  }

  total(): number {
    return countOf(this.s.total);
  }

  /** Queued URLs of each job but `default`, in `partitions` (every partition when absent). */
  countsByJob(partitions?: ReadonlySet<number>): Map<number, number> {
    const out = new Map<number, number>();
    for (const r of this.s.byJob.all()) if (!partitions || partitions.has(r.partition)) out.set(r.job, (out.get(r.job) ?? 0) + r.n);
    return out;
  }

  /**
   * Keeps `queue_drop_order` (the size limit's order) or not: built when asked for and missing (one pass over
   * the queue: about 1.3 s a million rows on a 2-core box), dropped when not asked for. Without it a dequeue
   * writes one B-tree page fewer (its entry's), and an admitted URL costs 37-38 B of disk less. Returns
   * whether the index was built or dropped now.
   */
  keepDropOrder(keep: boolean): boolean {
    const has = this.db.query("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'queue_drop_order'").get() !== null;
    if (has === keep) return false;
    this.db.exec(keep ? QUEUE_DROP_ORDER : "DROP INDEX queue_drop_order");
    return true;
  }

  /**
   * Deletes the `n` lowest-priority, most recently queued URLs (the size limit) and returns them; the caller
   * journals each as it gives the URL its final state. Needs `keepDropOrder(true)` first (throws without it).
   */
  deleteLowest(n: number): Array<QueuePlace & { url: string; depth: number }> {
    return this.db.query<QueuePlace & { url: string; depth: number }, [limit: number]>(DROP_LOWEST).all(n);
  }

  // ---- partition handoff --------------------------------------------------------------------------

  /** A page of a partition's queue, in key order after `after` (undefined: from the start). */
  inPartition(partition: number, after: Pick<QueuedUrl, "host" | "priority" | "seq"> | undefined, limit: number): QueuedUrl[] {
    const a = after ?? { host: "", priority: 0, seq: 0 };
    return this.s.inPartition.all(partition, a.host, a.priority, a.seq, limit);
  }

  anyIn(partition: number): boolean {
    return this.s.anyIn.get(partition) !== null;
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}
