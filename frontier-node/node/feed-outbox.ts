/**
 * The frontier node's side of the feed of fetched pages: an outbox on this node's disk, drained to the
 * stream CRAWL_PAGES. The frontier hands each batch's records to `publish` before the batch's transaction;
 * they are appended to the local table (adapters/sqlite SqlitePageFeed, the same one `crawl --http` keeps
 * its feed in) and nothing waits for NATS, so the stream's region being frozen or cut off never stops this
 * region's crawl. One loop publishes the oldest rows in order, each with its task id as `Nats-Msg-Id`, and
 * deletes them after the stream's ack; while the stream does not answer it tries again with a growing
 * pause and warns once (and once more when the stream answers again).
 *
 * A crash between the ack and the delete publishes those rows again at the next start: the stream stores
 * them once when that is within its duplicate window (2 minutes), twice when later. The outbox is bounded
 * by the feed's age and size (dropping the oldest first); what the bound drops never reaches the stream,
 * and is counted (`feed.outbox.dropped`) and warned about. A lost disk loses the rows not yet published.
 */
import type { PageRecord } from "../../core/feed/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import { errorFields, silentLog, type Log } from "../../kit/log/index.ts";

/** The local table the records wait in (SqlitePageFeed). */
export interface OutboxStore {
  publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void>;
  oldest(limit: number): Array<{ seq: number; id: string; record: PageRecord }>;
  removeThrough(seq: number): void;
  backlog(): { records: number; oldestAt: number | undefined };
  close(): Promise<void>;
}

export interface FeedOutboxOptions {
  outbox: OutboxStore;
  /** The stream (JetStreamPageFeed): only its publish is used. */
  stream: Pick<PageFeed, "publish">;
  /** Records per publish; default 256. */
  batch?: number;
  /** How often an empty outbox is looked at again; default 200 ms (a publish wakes it at once). */
  idleMs?: number;
  /** The first pause after the stream did not take a batch, doubled per failure up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
  counters?: Counters;
  log?: Log;
}

/** The one warning per outage, by the step that failed. */
const FAILED = {
  read: "the feed outbox could not be read: its records wait there",
  publish: "the page feed's stream does not take records: they wait in this node's outbox, the crawl goes on",
  delete: "the feed outbox could not delete published records: they are published again, and the stream stores them once",
};

export class FeedOutbox {
  private readonly batch: number;
  private readonly idleMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => number;
  private readonly log: Log;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failing = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: FeedOutboxOptions) {
    this.batch = opts.batch ?? 256;
    this.idleMs = opts.idleMs ?? 200;
    this.minBackoffMs = opts.minBackoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? silentLog;
  }

  /** Wires the bound's drops to the counter and a warning; pass as SqlitePageFeed's `onDropped`. */
  static dropReporter(counters: Counters | undefined, log: Log): (records: number) => void {
    return (records) => {
      counters?.add("feed.outbox.dropped", records);
      log.warn("the feed outbox is full (--feed-max-age, --feed-max-bytes): its oldest records were dropped and never reach the stream", {
        records,
      });
    };
  }

  /** Appends the records to the outbox (local, never waits for NATS) and wakes the drainer. */
  async publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void> {
    await this.opts.outbox.publish(items);
    this.wake();
  }

  /** Starts draining; idempotent. */
  start(): void {
    this.loop ??= this.drain();
  }

  /** Stops draining (the batch in flight finishes or fails) and closes the outbox; what is left waits for the next start. */
  stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    this.stopping ??= (async () => {
      await this.loop;
      await this.opts.outbox.close();
    })();
    return this.stopping;
  }

  /** The backlog for /metrics: records waiting, and the age of the oldest in seconds (0 when none). */
  gauges(): Record<string, number> {
    const { records, oldestAt } = this.opts.outbox.backlog();
    return {
      feedOutboxRecords: records,
      feedOutboxOldestAgeSeconds: oldestAt === undefined ? 0 : Math.max(0, (this.now() - oldestAt) / 1000),
    };
  }

  private wake(): void {
    this.wakeUp?.();
  }

  private async drain(): Promise<void> {
    let backoff = this.minBackoffMs;
    while (!this.stopped) {
      let step: keyof typeof FAILED = "read";
      try {
        const rows = this.opts.outbox.oldest(this.batch);
        if (rows.length === 0) {
          await this.pause(this.idleMs, true);
          continue;
        }
        step = "publish";
        await this.opts.stream.publish(rows.map(({ id, record }) => ({ id, record })));
        step = "delete";
        // A crash here publishes these rows again at the next start: the stream drops them by their ids.
        this.opts.outbox.removeThrough(rows[rows.length - 1]!.seq);
      } catch (error) {
        // The stream not answering, or (rarer) the outbox's file failing: either way the rows stay and are tried again.
        if (!this.failing) {
          this.failing = true;
          this.log.warn(FAILED[step], { ...errorFields(error), waiting: this.opts.outbox.backlog().records });
        }
        await this.pause(backoff, false);
        backoff = Math.min(backoff * 2, this.maxBackoffMs);
        continue;
      }
      backoff = this.minBackoffMs;
      if (this.failing) {
        this.failing = false;
        this.log.info("the page feed's stream takes records again: publishing this node's outbox", {
          waiting: this.opts.outbox.backlog().records,
        });
      }
    }
  }

  /** Waits `ms`, or less when stopped (or, when `wakeable`, when records arrive). */
  private pause(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(done, ms);
      this.wakeUp = wakeable ? done : () => this.stopped && done();
    });
  }
}
