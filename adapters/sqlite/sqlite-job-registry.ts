/**
 * `crawl`'s JobRegistry (core/ports/job-registry.ts): the job records in a table of a small SQLite file
 * under --out (`jobs.sqlite`), one row per job `(id, revision, record JSON)`. Why a table of its own file:
 * records are few (at most MAX_JOBS of a few hundred bytes) and change rarely (create, pause, resume,
 * cancel, end), a compare-and-set is one UPDATE guarded by the revision inside a transaction, a write is
 * durable when it returns (synchronous FULL: a page result can be lost to a power cut and fetched again, a
 * job's cancel must not be), and the frontier store's schema stays as it is. `watchJobs` is in-process:
 * the one frontier of `crawl` hears each write as it commits. Cost: ≤ 1,000 rows, ~0.5 MB at most.
 */
import type { Database } from "bun:sqlite";
import type { JobRecord } from "../../core/jobs/index.ts";
import type { JobRegistry } from "../../core/ports/index.ts";
import { openSqliteFile } from "./open-database.ts";

export class SqliteJobRegistry implements JobRegistry {
  private readonly watchers = new Set<(job: JobRecord) => void>();

  private constructor(private readonly db: Database) {}

  /** Opens (creating when needed) the registry at `path`; a damaged file is refused with StoreDamagedError. */
  static open(path: string): SqliteJobRegistry {
    const db = openSqliteFile(path, "FULL");
    db.exec("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, record TEXT NOT NULL) WITHOUT ROWID");
    return new SqliteJobRegistry(db);
  }

  async getJob(id: string): Promise<{ job: JobRecord; revision: number } | undefined> {
    const row = this.db.query("SELECT revision, record FROM jobs WHERE id = ?").get(id) as { revision: number; record: string } | null;
    return row ? { job: JSON.parse(row.record) as JobRecord, revision: row.revision } : undefined;
  }

  async listJobs(): Promise<JobRecord[]> {
    return (this.db.query("SELECT record FROM jobs").all() as Array<{ record: string }>).map((r) => JSON.parse(r.record) as JobRecord);
  }

  async casJob(job: JobRecord, revision: number): Promise<number | undefined> {
    const record = JSON.stringify(job);
    const written = this.db.transaction(() => {
      const row = this.db.query("SELECT revision FROM jobs WHERE id = ?").get(job.id) as { revision: number } | null;
      if ((row?.revision ?? 0) !== revision) return undefined;
      this.db.query("INSERT OR REPLACE INTO jobs (id, revision, record) VALUES (?, ?, ?)").run(job.id, revision + 1, record);
      return revision + 1;
    })();
    if (written !== undefined) for (const watch of this.watchers) watch(JSON.parse(record) as JobRecord);
    return written;
  }

  watchJobs(onJob: (job: JobRecord) => void): () => void {
    for (const { record } of this.db.query("SELECT record FROM jobs").all() as Array<{ record: string }>)
      onJob(JSON.parse(record) as JobRecord);
    this.watchers.add(onJob);
    return () => this.watchers.delete(onJob);
  }

  close(): void {
    this.watchers.clear();
    this.db.close();
  }
}
