/**
 * The in-process ClusterState: membership and ring in memory, with the same revision and compare-and-set
 * semantics as the NATS KV implementation. Used by unit tests of the coordinator and frontier node, and as
 * the reference the contract suite checks the networked implementation against.
 */
import type { ClusterState, NodeRecord, RingRecord } from "../../core/cluster/index.ts";

export class MemoryClusterState implements ClusterState {
  private readonly nodes = new Map<string, NodeRecord>();
  private ring: { ring: RingRecord; revision: number } | undefined;
  private revision = 0;
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();
  private readonly watchers = new Set<(ring: RingRecord, revision: number) => void>();

  async putNode(record: NodeRecord): Promise<void> {
    this.revision++;
    this.nodes.set(record.id, structuredClone(record));
  }

  async deleteNode(id: string): Promise<void> {
    this.revision++;
    this.nodes.delete(id);
  }

  async listNodes(): Promise<NodeRecord[]> {
    return [...this.nodes.values()].map((n) => structuredClone(n));
  }

  async getRing(): Promise<{ ring: RingRecord; revision: number } | undefined> {
    return this.ring ? { ring: structuredClone(this.ring.ring), revision: this.ring.revision } : undefined;
  }

  async casRing(ring: RingRecord, revision: number): Promise<number | undefined> {
    const current = this.ring?.revision ?? 0;
    if (current !== revision) return undefined;
    this.revision++;
    this.ring = { ring: structuredClone(ring), revision: this.revision };
    const snapshot = this.ring;
    // Watchers hear about the write after the writer's await resolves, as they would over the network.
    queueMicrotask(() => {
      for (const w of this.watchers) w(structuredClone(snapshot.ring), snapshot.revision);
    });
    return this.revision;
  }

  watchRing(onRing: (ring: RingRecord, revision: number) => void): () => void {
    this.watchers.add(onRing);
    const current = this.ring;
    if (current) queueMicrotask(() => onRing(structuredClone(current.ring), current.revision));
    return () => this.watchers.delete(onRing);
  }

  async acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const lease = this.leases.get(name);
    if (lease && lease.holder !== holder && lease.expiresAt > now) return false;
    this.leases.set(name, { holder, expiresAt: now + ttlMs });
    return true;
  }

  async close(): Promise<void> {
    this.watchers.clear();
  }
}
