/**
 * The hosts table of the frontier store: each host's politeness state, today's page count, the operator's
 * gap override and the run that saved it, as small JSON (persisted-host.ts) rewritten after every fetch of
 * the host. A saved text that is not a host's state is refused, never guessed.
 *
 * Cost: one WITHOUT ROWID row per host ever fetched (about 300 bytes of JSON), one write per result.
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";
import { parsePersistedHost, type PersistedHost } from "./persisted-host.ts";

function prepare(db: Database) {
  return {
    get: db.query<{ state: string }, [host: string]>("SELECT state FROM hosts WHERE host = ?"),
    put: db.query<never, [host: string, partition: number, state: string]>(
      "INSERT OR REPLACE INTO hosts (host, partition, state) VALUES (?, ?, ?)",
    ),
    inPartition: db.query<{ host: string; state: string }, [partition: number]>("SELECT host, state FROM hosts WHERE partition = ?"),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM hosts WHERE partition = ?"),
  };
}

export class HostStateTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  /**
   * A host's saved state; undefined when none was saved. Throws when the saved text is not a host's state
   * (a damaged store): the host's politeness state is never guessed.
   */
  get(host: string): PersistedHost | undefined {
    const row = this.s.get.get(host);
    if (!row) return undefined;
    try {
      return parsePersistedHost(row.state);
    } catch (error) {
      throw new Error(`frontier store: the saved state of host ${host} is unreadable: ${(error as Error).message}`, { cause: error });
    }
  }

  put(host: string, partition: number, state: PersistedHost): void {
    const json = JSON.stringify(state);
    this.s.put.run(host, partition, json);
    this.note(partition, ["h", host, json]);
  }

  /** A partition's hosts with their saved state as text (a handoff carries it as it is). */
  inPartition(partition: number): Array<{ host: string; state: string }> {
    return this.s.inPartition.all(partition);
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}
