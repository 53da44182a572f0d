/**
 * The store's change journal, kept when a frontier node replicates its partitions' state (docs/cluster.md,
 * "Replicated partition state"). While a transaction runs, every write to a partition's rows is noted as a
 * change (changes.ts); at commit the changes of each partition touched become one journal row, written in
 * the same transaction as the rows themselves, so the journal never says less or more than the store did.
 *
 * Rows are numbered per partition (n = 1, 2, 3... over the store's whole life, never reused) and stamped
 * with the partition's epoch: the replica sequence of the claim under which this store writes the
 * partition now (0 before any claim), which the replicator sets when it claims. A row stays until
 * the replicator says it is stored elsewhere (`acknowledge`), which also records the last n so stored and
 * where: so a crash or an outage loses no row, and numbering resumes where it stopped. The journal knows
 * nothing of where rows go.
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export interface JournalRow {
  partition: number;
  n: number;
  epoch: number;
  /** The batch: a JSON array of changes. */
  body: string;
}

/** What the replicator recorded for a partition: its claim, and the last row stored elsewhere. */
export interface JournalState {
  /**
   * The epoch: the replica sequence of this store's claim of the partition, 0 when the store holds no
   * claimed copy of it (never claimed, or given up).
   */
  epoch: number;
  /** The last n stored elsewhere, and at which replica sequence (0 when none). */
  ackedN: number;
  ackedSeq: number;
}

export const JOURNAL_SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  partition INTEGER NOT NULL,
  n INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (partition, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal_state (
  partition INTEGER PRIMARY KEY,
  epoch INTEGER NOT NULL,
  acked_n INTEGER NOT NULL,
  acked_seq INTEGER NOT NULL
);
`;

/** Largest journal row: well under NATS's default 1 MiB message limit, with room for a batch's framing. */
const MAX_ROW_BYTES = 256 * 1024;

interface RawState {
  epoch: number;
  acked_n: number;
  acked_seq: number;
}

function prepare(db: Database) {
  return {
    insert: db.query<never, [partition: number, n: number, epoch: number, body: string]>(
      "INSERT INTO journal (partition, n, epoch, body) VALUES (?, ?, ?, ?)",
    ),
    rows: db.query<JournalRow, [partition: number, afterN: number, limit: number]>(
      "SELECT partition, n, epoch, body FROM journal WHERE partition = ? AND n > ? ORDER BY n LIMIT ?",
    ),
    partitions: db.query<{ partition: number }, []>("SELECT DISTINCT partition FROM journal"),
    maxN: db.query<{ n: number | null }, [partition: number]>("SELECT MAX(n) AS n FROM journal WHERE partition = ?"),
    count: db.query<{ n: number }, [partition: number]>("SELECT COUNT(*) AS n FROM journal WHERE partition = ?"),
    total: db.query<{ n: number; bytes: number | null }, []>("SELECT COUNT(*) AS n, SUM(LENGTH(body)) AS bytes FROM journal"),
    deleteUpTo: db.query<never, [partition: number, n: number]>("DELETE FROM journal WHERE partition = ? AND n <= ?"),
    deleteAll: db.query<never, [partition: number]>("DELETE FROM journal WHERE partition = ?"),
    state: db.query<RawState, [partition: number]>("SELECT epoch, acked_n, acked_seq FROM journal_state WHERE partition = ?"),
    putState: db.query<never, [partition: number, epoch: number, ackedN: number, ackedSeq: number]>(
      "INSERT OR REPLACE INTO journal_state (partition, epoch, acked_n, acked_seq) VALUES (?, ?, ?, ?)",
    ),
  };
}

export class ChangeJournal {
  private readonly s: ReturnType<typeof prepare>;
  /** Changes noted in the running transaction, by partition. */
  private pending = new Map<number, Change[]>();
  /** The last n given out per partition (loaded on first use). */
  private readonly lastN = new Map<number, number>();
  /** Partitions whose rows were written by the last commit, for the listener. */
  private written: number[] = [];
  private muted = 0;
  private listener: ((partitions: readonly number[]) => void) | undefined;

  constructor(db: Database) {
    this.s = prepare(db);
  }

  /** Notes a change of `partition` in the running transaction (nothing while muted). */
  note(partition: number, change: Change): void {
    if (this.muted > 0) return;
    let list = this.pending.get(partition);
    if (!list) this.pending.set(partition, (list = []));
    list.push(change);
  }

  /** Runs `fn` without noting its writes (a replay or an import of someone else's rows). */
  mute<T>(fn: () => T): T {
    this.muted++;
    try {
      return fn();
    } finally {
      this.muted--;
    }
  }

  /**
   * Writes the noted changes as one row per partition (split into rows of at most MAX_ROW_BYTES, so every
   * row fits in one message of the replica); called inside the transaction, just before it commits.
   */
  flush(): void {
    if (this.pending.size === 0) return;
    for (const [partition, changes] of this.pending) {
      const epoch = this.state(partition)?.epoch ?? 0;
      let part: string[] = [];
      let bytes = 0;
      const write = () => {
        this.s.insert.run(partition, this.nextN(partition), epoch, `[${part.join(",")}]`);
        part = [];
        bytes = 0;
      };
      for (const change of changes) {
        const json = JSON.stringify(change);
        if (part.length > 0 && bytes + json.length > MAX_ROW_BYTES) write();
        part.push(json);
        bytes += json.length + 1;
      }
      write();
      this.written.push(partition);
    }
    this.pending = new Map();
  }

  /** The transaction rolled back: its changes never happened. */
  discard(): void {
    this.pending = new Map();
    // Numbers handed out for rows that were rolled back are reloaded from the table.
    for (const p of this.written) this.lastN.delete(p);
    this.written = [];
  }

  /** After a commit: tells the listener which partitions have new rows. */
  committed(): void {
    if (this.written.length === 0) return;
    const partitions = this.written;
    this.written = [];
    this.listener?.(partitions);
  }

  /** Called after every commit that wrote rows, with the partitions they belong to. */
  onCommit(listener: ((partitions: readonly number[]) => void) | undefined): void {
    this.listener = listener;
  }

  /** Up to `limit` rows of a partition after `afterN`, in order. */
  rows(partition: number, afterN: number, limit: number): JournalRow[] {
    return this.s.rows.all(partition, afterN, limit);
  }

  /** Partitions that have rows not yet stored elsewhere. */
  partitions(): number[] {
    return this.s.partitions.all().map((r) => r.partition);
  }

  /** Rows waiting, and their size, over every partition (a gauge). */
  backlog(): { rows: number; bytes: number } {
    const t = this.s.total.get();
    return { rows: t?.n ?? 0, bytes: t?.bytes ?? 0 };
  }

  /** Rows waiting for one partition. */
  waiting(partition: number): number {
    return this.s.count.get(partition)?.n ?? 0;
  }

  /** The last n written for a partition (0 when none). */
  last(partition: number): number {
    return this.nextN(partition, false);
  }

  state(partition: number): JournalState | undefined {
    const r = this.s.state.get(partition);
    return r ? { epoch: r.epoch, ackedN: r.acked_n, ackedSeq: r.acked_seq } : undefined;
  }

  /** Rows up to `n` of a partition are stored elsewhere, the last at replica sequence `seq`: they go. */
  acknowledge(partition: number, n: number, seq: number): void {
    const st = this.state(partition) ?? { epoch: 0, ackedN: 0, ackedSeq: 0 };
    this.s.deleteUpTo.run(partition, n);
    if (n > st.ackedN) this.s.putState.run(partition, st.epoch, n, seq);
  }

  /**
   * The store now writes the partition under the claim stored at replica sequence `epoch`. The claim
   * says which n it follows (`last()` at the time), so the acked mark moves to it.
   */
  setEpoch(partition: number, epoch: number): void {
    this.s.putState.run(partition, epoch, this.last(partition), epoch);
  }

  /**
   * Forgets a partition's waiting rows (its rows are being replaced or were given away) and its epoch: the
   * store holds no claimed copy of it any more. Numbering never goes back: the last n stays recorded.
   */
  drop(partition: number): void {
    const last = this.last(partition);
    this.s.deleteAll.run(partition);
    this.s.putState.run(partition, 0, last, 0);
  }

  private nextN(partition: number, advance = true): number {
    let n = this.lastN.get(partition);
    if (n === undefined) {
      n = Math.max(this.s.maxN.get(partition)?.n ?? 0, this.state(partition)?.ackedN ?? 0);
      this.lastN.set(partition, n);
    }
    if (!advance) return n;
    this.lastN.set(partition, n + 1);
    return n + 1;
  }
}
