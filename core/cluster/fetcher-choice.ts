/**
 * Host affinity for fetch nodes: which of a region's live fetch nodes gets a host's tasks. Rendezvous
 * (highest random weight) hashing of the host's politeness key (core/politeness: the host, or its
 * registrable domain, so a domain's hosts stay together) over the node ids: every frontier node with the
 * same list of live fetch nodes picks the same one without asking anybody, and a node joining or leaving
 * moves only the keys it wins or held (about 1/N of them), so each host keeps the fetch node that holds
 * its connection and TLS session unless that node is gone.
 *
 * Cost: one 32-bit hash of the key, then one integer mix per live node (a region of 100 fetch nodes: about
 * a microsecond a task); the choice is not remembered, so nothing is kept per host. The same function
 * picks the heir of a gone node's inbox (fetch-node/inbox-heirs.ts), keyed by the gone node's id.
 */
import { fmix32, hash32 } from "../hash/index.ts";
import type { NodeRecord } from "./records.ts";

export class FetcherChoice {
  private readonly ids: readonly string[];
  private readonly seeds: Int32Array;

  /** `ids`: the live fetch nodes to choose among (order and repeats do not matter). */
  constructor(ids: Iterable<string>) {
    this.ids = [...new Set(ids)].sort();
    this.seeds = Int32Array.from(this.ids, (id) => hash32(id));
  }

  /** How many nodes there are to choose among. */
  get size(): number {
    return this.ids.length;
  }

  /** The sorted node ids. */
  get nodes(): readonly string[] {
    return this.ids;
  }

  /** The node that takes `key`'s work; undefined when there is none to choose. Ties go to the smaller id. */
  of(key: string): string | undefined {
    const n = this.ids.length;
    if (n <= 1) return this.ids[0];
    const k = hash32(key);
    let best = 0;
    let bestScore = -1;
    for (let i = 0; i < n; i++) {
      const score = fmix32(k ^ this.seeds[i]!) >>> 0;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    return this.ids[best];
  }

  /** Whether both choose among the same nodes. */
  sameAs(other: FetcherChoice): boolean {
    return this.ids.length === other.ids.length && this.ids.every((id, i) => id === other.ids[i]);
  }
}

/**
 * The ids of `region`'s fetch nodes that take tasks now: a record of role fetcher, not draining (a node
 * stopping says so first, so its hosts move before it goes), not in local trouble (its gauge `localTrouble`:
 * cut from the web, its proxy or resolver failing, so it hands every task back untried; its hosts go to the
 * others until it gets through again), whose last heartbeat (`heartbeatAt`, wall clock) is at most `staleMs`
 * old at `now`. A node that stopped cleanly has no record.
 */
export function liveFetchers(
  records: readonly (Pick<NodeRecord, "id" | "role" | "region" | "status" | "heartbeatAt"> & { gauges?: Record<string, number> })[],
  region: string,
  now: number,
  staleMs: number,
): string[] {
  return records
    .filter(
      (n) =>
        n.role === "fetcher" &&
        n.region === region &&
        n.status !== "draining" &&
        !((n.gauges?.localTrouble ?? 0) > 0) &&
        now - n.heartbeatAt <= staleMs,
    )
    .map((n) => n.id);
}
