/**
 * Each crawl job's counters per partition: page results (every outcome) and, of those, errors. Written in
 * the transaction that applies the results (engine/frontier/results.ts), so a result is counted exactly
 * when its effects are committed, once. Each write is journaled as the row's whole new value (change `jc`),
 * so a replica or the next owner of the partition holds the same counts, and handoff carries the rows.
 *
 * Cost: one row per (partition, job) with results: at most partitions × jobs (64 × 1,000), a few bytes each.
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export interface JobCountRow {
  pages: number;
  errors: number;
}

function prepare(db: Database) {
  return {
    get: db.query<JobCountRow, [partition: number, job: number]>("SELECT pages, errors FROM job_counts WHERE partition = ? AND job = ?"),
    put: db.query<never, [partition: number, job: number, pages: number, errors: number]>(
      "INSERT OR REPLACE INTO job_counts (partition, job, pages, errors) VALUES (?, ?, ?, ?)",
    ),
    inPartition: db.query<JobCountRow & { job: number }, [partition: number]>(
      "SELECT job, pages, errors FROM job_counts WHERE partition = ? ORDER BY job",
    ),
    all: db.query<JobCountRow & { partition: number; job: number }, []>("SELECT partition, job, pages, errors FROM job_counts"),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM job_counts WHERE partition = ?"),
  };
}

export class JobCountTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  /** Adds to a job's counters in a partition (inside the caller's transaction). */
  add(partition: number, job: number, pages: number, errors: number): void {
    const now = this.s.get.get(partition, job) ?? { pages: 0, errors: 0 };
    this.put(partition, job, { pages: now.pages + pages, errors: now.errors + errors });
  }

  /** Sets a job's counters in a partition (a replayed or handed-over row). */
  put(partition: number, job: number, row: JobCountRow): void {
    this.s.put.run(partition, job, row.pages, row.errors);
    this.note(partition, ["jc", job, row.pages, row.errors]);
  }

  inPartition(partition: number): Array<JobCountRow & { job: number }> {
    return this.s.inPartition.all(partition);
  }

  /** Each job's counters summed over `partitions` (every partition of the store when absent). */
  sums(partitions?: ReadonlySet<number>): Map<number, JobCountRow> {
    const out = new Map<number, JobCountRow>();
    for (const r of this.s.all.all()) {
      if (partitions && !partitions.has(r.partition)) continue;
      const sum = out.get(r.job) ?? { pages: 0, errors: 0 };
      sum.pages += r.pages;
      sum.errors += r.errors;
      out.set(r.job, sum);
    }
    return out;
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}
