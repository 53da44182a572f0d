/**
 * Sends the store's change journal to the partition replica (docs/cluster.md, "Replicated partition
 * state"). Each partition is its own ordered queue: at most one message of a partition is in flight at a
 * time (so its rows reach the log in row order, and a row acknowledged before a snapshot began is stored
 * before every later row), and up to `window` partitions send at once. A message packs the partition's
 * waiting rows of one epoch, up to `maxBytes`. A row leaves the journal only once the replica has stored it
 * (`acknowledge`, in the store); a failed send is retried with a growing delay, from the same row, so an
 * outage or a crash re-sends and loses nothing that was committed locally. Memory stays bounded: rows are
 * read from the store when their partition's turn comes, never queued in memory.
 *
 * Two things keep the cost per row down at a node's full pace, where every group commit touches most of its
 * partitions. A partition's new rows wait `lingerMs` for later commits to join them (one message instead of
 * one per commit; a handoff's `flushed` does not wait). And the acknowledgements of many messages are
 * written to the store together, every `ACK_FLUSH_MS`: one transaction instead of one per message. Until
 * then a stored row stays in the journal but is never sent again (sends start after the last row known
 * stored); a crash before the write sends it again, which the replica's message ids and the replay's
 * row numbers make harmless.
 *
 * `whenStored(p, n)` resolves once row n of p is stored: the node acks a URL message only then, so a URL it
 * admitted is never lost with its disk.
 */
import type { PartitionReplica, ReplicaWriter } from "../../core/ports/index.ts";
import type { Log } from "../../kit/log/index.ts";
import type { ChangeJournal, FrontierStore } from "../../engine/frontier/index.ts";

export interface PublisherOptions {
  store: FrontierStore;
  journal: ChangeJournal;
  replica: Pick<PartitionReplica, "append">;
  region: string;
  writer: ReplicaWriter;
  /** Partitions sending at once. Default 64. */
  window?: number;
  /** Bytes of rows per message (a larger single row goes alone). Default 256 KiB. */
  maxBytes?: number;
  /** Rows read per message at most. Default 512. */
  maxRows?: number;
  /** How long new rows of a partition wait for later ones before they are sent. Default 0. */
  lingerMs?: number;
  log: Log;
  now: () => number;
}

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;
/** How often acknowledgements of stored messages are written to the store, together. */
const ACK_FLUSH_MS = 50;

interface Waiter {
  n: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class StatePublisher {
  /** Partitions that may have rows to send. */
  private readonly wanted = new Set<number>();
  private readonly sending = new Map<number, Promise<void>>();
  private readonly retryAt = new Map<number, { at: number; delayMs: number }>();
  /** When a partition's waiting rows go (the first of them committed `lingerMs` before). */
  private readonly lingerUntil = new Map<number, number>();
  /** Messages stored by the replica whose acknowledgement is not written to the store yet. */
  private readonly pendingAcks = new Map<number, { n: number; seq: number }>();
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private ackFailureLogged = false;
  /** The last row of a send that failed: the retry sends the same rows (so a stored copy is recognized). */
  private readonly failedLast = new Map<number, number>();
  private readonly waiters = new Map<number, Waiter[]>();
  /** The last row stored per partition (read from the journal on first use). */
  private readonly stored = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private stopped = false;
  private lastFailureLog = 0;
  readonly counts = { messages: 0, rows: 0, bytes: 0, failures: 0 };
  private lastStoredAt = 0;

  constructor(private readonly opts: PublisherOptions) {}

  /** Starts with every partition that has rows left from before (a restart re-sends them). */
  start(): void {
    this.opts.journal.onCommit((partitions) => this.notify(partitions));
    this.notify(this.opts.journal.partitions());
  }

  /** New rows were committed for these partitions. */
  notify(partitions: Iterable<number>): void {
    const at = this.opts.now() + (this.opts.lingerMs ?? 0);
    for (const p of partitions) {
      // Rows already waiting keep their time: the first of them sets when they all go.
      if (!this.lingerUntil.has(p)) this.lingerUntil.set(p, at);
      this.wanted.add(p);
    }
    this.pump();
  }

  /** Resolves once row `n` of partition p (and every row before it) is stored in the replica. */
  whenStored(p: number, n: number): Promise<void> {
    if (n <= this.storedUpTo(p)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let list = this.waiters.get(p);
      if (!list) this.waiters.set(p, (list = []));
      list.push({ n, resolve, reject });
    });
  }

  /** Resolves once every row of p committed so far is stored. */
  flushed(p: number): Promise<void> {
    const done = this.whenStored(p, this.opts.journal.last(p));
    // Someone waits for these rows (a handoff, a claim): they go now, without lingering.
    if (this.lingerUntil.delete(p)) this.pump();
    return done;
  }

  /**
   * The partition's rows were dropped from the journal (its rows are being replaced, or it was given
   * away): whoever waited for them is told they will never be stored (a URL message is then delivered
   * again rather than acked), and the next rows are numbered on from the journal.
   */
  forget(p: number, why = "the partition's journal rows were dropped"): void {
    this.stored.delete(p);
    this.failedLast.delete(p);
    this.pendingAcks.delete(p);
    const list = this.waiters.get(p) ?? [];
    this.waiters.delete(p);
    for (const w of list) w.reject(new Error(why));
  }

  /** Rows waiting in the journal and the age of the last stored message, for /metrics and the node record. */
  gauges(): Record<string, number> {
    const backlog = this.opts.journal.backlog();
    return {
      "replication.backlog.rows": backlog.rows,
      "replication.backlog.bytes": backlog.bytes,
      "replication.sending": this.sending.size,
      "replication.last-stored-age-ms": this.lastStoredAt === 0 ? -1 : Math.max(0, this.opts.now() - this.lastStoredAt),
    };
  }

  /**
   * Stops sending. For at most `graceMs` it first sends what is waiting, lingering rows included, so a
   * clean stop leaves its URL messages acked rather than delivered again to the next owner. Rows not sent
   * stay in the journal.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.opts.journal.onCommit(undefined);
    const deadline = this.opts.now() + graceMs;
    this.lingerUntil.clear();
    this.pump();
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = new Promise<void>((r) => (graceTimer = setTimeout(r, graceMs)));
    // Each finished send starts the next waiting partition (pump): go on until none is sending.
    while (this.sending.size > 0 && this.opts.now() < deadline) {
      await Promise.race([Promise.race([...this.sending.values()]).catch(() => undefined), graceOver]);
    }
    clearTimeout(graceTimer);
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    this.writeAcks();
    // Rows not sent stay in the journal; whoever waits for them is told no (a URL message is delivered again).
    for (const p of [...this.waiters.keys()]) this.forget(p, "the node is stopping before these rows were replicated");
  }

  private storedUpTo(p: number): number {
    let n = this.stored.get(p);
    if (n === undefined) {
      // Rows below the first one waiting are stored (a row leaves the journal only when stored).
      const first = this.opts.journal.rows(p, 0, 1)[0]?.n;
      n = first === undefined ? this.opts.journal.last(p) : first - 1;
      this.stored.set(p, n);
    }
    return n;
  }

  private pump(): void {
    if (this.stopped) return;
    const now = this.opts.now();
    let next = Infinity;
    for (const p of this.wanted) {
      if (this.sending.size >= (this.opts.window ?? 64)) break;
      if (this.sending.has(p)) continue;
      const at = Math.max(this.retryAt.get(p)?.at ?? 0, this.lingerUntil.get(p) ?? 0);
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      this.wanted.delete(p);
      this.lingerUntil.delete(p);
      const sending = this.send(p).finally(() => {
        this.sending.delete(p);
        this.pump();
      });
      this.sending.set(p, sending);
    }
    if (next < this.timerAt) {
      if (this.timer) clearTimeout(this.timer);
      this.timerAt = next;
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.timerAt = Infinity;
          this.pump();
        },
        Math.max(1, next - now),
      );
    }
  }

  /** Writes the acknowledgements waiting, in one transaction; on a store error they wait for the next try. */
  private writeAcks(): void {
    if (this.pendingAcks.size === 0) return;
    const acks = [...this.pendingAcks];
    try {
      this.opts.store.tx(() => {
        for (const [p, a] of acks) this.opts.journal.acknowledge(p, a.n, a.seq);
      });
      for (const [p, a] of acks) if (this.pendingAcks.get(p) === a) this.pendingAcks.delete(p);
      this.ackFailureLogged = false;
    } catch (error) {
      // The rows stay in the journal (never sent again while this process runs; after a restart they are,
      // harmlessly): the next flush tries again.
      if (!this.ackFailureLogged) this.opts.log.warn("cannot record replicated rows in the store; trying again", { error });
      this.ackFailureLogged = true;
      this.scheduleAcks();
    }
  }

  private scheduleAcks(): void {
    if (this.ackTimer || this.stopped) return;
    this.ackTimer = setTimeout(() => {
      this.ackTimer = undefined;
      this.writeAcks();
    }, ACK_FLUSH_MS);
  }

  private async send(p: number): Promise<void> {
    const { journal, log } = this.opts;
    // After the last row known stored: its acknowledgement may still wait to be written.
    const rows = journal.rows(p, this.storedUpTo(p), this.opts.maxRows ?? 512);
    const lastCommitted = journal.last(p);
    if (rows.length === 0) return;
    const epoch = rows[0]!.epoch;
    const maxBytes = this.opts.maxBytes ?? 256 * 1024;
    const upTo = this.failedLast.get(p) ?? Infinity;
    const parts: string[] = [];
    let bytes = 0;
    let last = rows[0]!.n - 1;
    for (const row of rows) {
      if (row.epoch !== epoch || row.n !== last + 1 || row.n > upTo || (parts.length > 0 && bytes + row.body.length > maxBytes)) break;
      parts.push(`[${row.n},${row.body}]`);
      bytes += row.body.length;
      last = row.n;
    }
    const first = rows[0]!.n;
    try {
      const seq = await this.opts.replica.append(this.opts.region, p, {
        writer: this.opts.writer,
        epoch,
        first,
        last,
        body: `[${parts.join(",")}]`,
      });
      this.pendingAcks.set(p, { n: last, seq });
      this.scheduleAcks();
      this.retryAt.delete(p);
      this.failedLast.delete(p);
      this.counts.messages++;
      this.counts.rows += last - first + 1;
      this.counts.bytes += bytes;
      this.lastStoredAt = this.opts.now();
      this.markStored(p, last);
      // More rows were waiting than this message carried: go again at once (rows committed meanwhile were
      // notified and wait their linger).
      if (lastCommitted > last) {
        this.wanted.add(p);
        this.lingerUntil.delete(p);
      }
    } catch (error) {
      // It may have been stored all the same (a lost acknowledgement): the same rows go again, and the
      // replica recognizes them; a batch with other rows would be another batch (the replay skips copies).
      this.failedLast.set(p, last);
      this.counts.failures++;
      const prev = this.retryAt.get(p)?.delayMs ?? 0;
      const delayMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, prev * 2));
      this.retryAt.set(p, { at: this.opts.now() + delayMs, delayMs });
      this.wanted.add(p);
      if (this.opts.now() - this.lastFailureLog >= 10_000) {
        this.lastFailureLog = this.opts.now();
        log.warn("cannot store partition state in the replica; the rows wait in the journal and are sent again", {
          partition: p,
          rows: journal.waiting(p),
          retryInMs: delayMs,
          error,
        });
      }
    }
  }

  private markStored(p: number, n: number): void {
    this.stored.set(p, Math.max(n, this.stored.get(p) ?? 0));
    const list = this.waiters.get(p);
    if (!list) return;
    const left = list.filter((w) => {
      if (w.n > n) return true;
      w.resolve();
      return false;
    });
    if (left.length > 0) this.waiters.set(p, left);
    else this.waiters.delete(p);
  }
}
