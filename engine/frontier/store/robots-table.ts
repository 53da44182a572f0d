/**
 * The robots table of the frontier store: each host's robots.txt verdict (allow-all, disallow-all, or the
 * text to parse) with when it was fetched and when it expires. Kept apart from the hosts table because the
 * text can be 500 KiB and the host state is rewritten after every fetch; this row only when robots.txt is
 * fetched again.
 *
 * Cost: one WITHOUT ROWID row per host whose robots.txt was read (the text, up to 500 KiB, plus 40 bytes).
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export interface StoredRobots {
  verdict: "allow-all" | "disallow-all" | "parse";
  body?: string;
  fetchedAt: number;
  expiresAt: number;
}

interface RawRobots {
  verdict: StoredRobots["verdict"];
  body: string | null;
  fetched_at: number;
  expires_at: number;
}

function prepare(db: Database) {
  return {
    get: db.query<RawRobots, [host: string]>("SELECT verdict, body, fetched_at, expires_at FROM robots WHERE host = ?"),
    put: db.query<
      never,
      [host: string, partition: number, verdict: StoredRobots["verdict"], body: string | null, fetchedAt: number, expiresAt: number]
    >("INSERT OR REPLACE INTO robots (host, partition, verdict, body, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)"),
    inPartition: db.query<RawRobots & { host: string }, [partition: number]>(
      "SELECT host, verdict, body, fetched_at, expires_at FROM robots WHERE partition = ?",
    ),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM robots WHERE partition = ?"),
  };
}

export class RobotsTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  get(host: string): StoredRobots | undefined {
    const row = this.s.get.get(host);
    return row ? toRobots(row) : undefined;
  }

  put(host: string, partition: number, robots: StoredRobots): void {
    this.s.put.run(host, partition, robots.verdict, robots.body ?? null, robots.fetchedAt, robots.expiresAt);
    this.note(partition, ["r", host, robots.verdict, robots.body ?? null, robots.fetchedAt, robots.expiresAt]);
  }

  /** A partition's robots.txt verdicts by host. */
  inPartition(partition: number): Map<string, StoredRobots> {
    const out = new Map<string, StoredRobots>();
    for (const r of this.s.inPartition.all(partition)) out.set(r.host, toRobots(r));
    return out;
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}

function toRobots(r: RawRobots): StoredRobots {
  return { verdict: r.verdict, body: r.body ?? undefined, fetchedAt: r.fetched_at, expiresAt: r.expires_at };
}
