/**
 * Which partitions this frontier serves (all of them in embedded mode; a cluster's frontier node serves
 * the ones the coordinator assigns it). Taking a partition on loads its hosts with work into memory, each
 * waiting a gap from now since another run may have had a request in flight, and probes its seen-set;
 * one rebuilt from a replica after its holder was lost also waits until a fetch that holder started must
 * have ended. Giving one up forgets its idle hosts at once (its rows stay in the store for the handoff) and
 * a busy one once its fetch ends; its seen-set is released.
 */
import type { ActiveHosts } from "./active-hosts.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { SeenRecovery } from "./seen-recovery.ts";

export class Partitions {
  /** Partitions rebuilt from a replica, not loaded yet, with when their former holder was lost. */
  private readonly restoredAt = new Map<number, number>();

  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly seenRecovery: SeenRecovery,
  ) {}

  /** Loads the hosts with work of every partition served (at start). */
  loadServed(): void {
    if (this.s.serving === undefined) this.load(undefined);
    else for (const p of this.s.serving) this.load(p);
  }

  /** Serves exactly these partitions from now on. Partitions given up must have nothing in flight. */
  setServing(partitions: Iterable<number>): void {
    const next = new Set(partitions);
    const before = this.s.serving ?? new Set<number>();
    for (const p of before) if (!next.has(p)) this.s.opts.seen.release?.(p);
    for (const [host, entry] of this.s.hosts) {
      if (next.has(entry.partition) || entry.inFlight) continue;
      this.hosts.forget(host);
    }
    this.hosts.dropColdOf([...before].filter((p) => !next.has(p)));
    this.s.serving = next;
    for (const p of next) {
      if (before.has(p)) continue;
      this.load(p);
      this.seenRecovery.probe(p);
    }
  }

  /** Tasks in flight for hosts of partition p (a handoff waits for zero). */
  inFlightIn(p: number): number {
    let n = 0;
    for (const entry of this.s.hosts.values()) if (entry.inFlight && entry.partition === p) n++;
    return n;
  }

  /**
   * Partition p was rebuilt in the store from its replica after the node holding it was lost at `lostAt`;
   * called before p is served. Its hosts may have had a fetch in flight there: when they are loaded they
   * wait until such a fetch must have ended, plus their gap (core/politeness `releaseAfterLoss`).
   */
  restored(p: number, lostAt: number): void {
    this.restoredAt.set(p, lostAt);
    this.s.recount();
  }

  private load(partition: number | undefined): void {
    const lostAt = partition === undefined ? undefined : this.restoredAt.get(partition);
    if (partition !== undefined) this.restoredAt.delete(partition);
    this.hosts.loadWithWork(partition, lostAt);
  }
}
