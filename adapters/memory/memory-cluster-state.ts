/**
 * The in-process ClusterState: membership and ring in memory, with the same revision and compare-and-set
 * semantics as the NATS KV implementation. Used by unit tests of the coordinator and frontier node, and as
 * the reference the contract suite checks the networked implementation against.
 */
import type { NodeRecord, RingRecord } from "../../core/cluster/index.ts";
import type { JobRecord } from "../../core/jobs/index.ts";
import type { ClusterState, NodeChange } from "../../core/ports/index.ts";

/** Records kept per node, as the NATS bucket's default history. */
const HISTORY = 5;

export class MemoryClusterState implements ClusterState {
  private readonly nodes = new Map<string, NodeRecord>();
  /** The store's revision of each node's last write, as the KV bucket's sequence. */
  private readonly nodeRevisions = new Map<string, number>();
  private readonly nodeWatchers = new Set<NodeWatcher>();
  /** The last HISTORY records of each node, oldest first. */
  private readonly history = new Map<string, NodeRecord[]>();
  private ring: { ring: RingRecord; revision: number } | undefined;
  private revision = 0;
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();
  /** Every lease write's revision, as a bucket's sequence would count them. */
  private leaseRevision = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly roots = new Set<string>();
  private readonly rootWatchers = new Set<(hosts: string[]) => void>();
  private readonly jobs = new Map<string, { job: JobRecord; revision: number }>();
  private readonly jobWatchers = new Set<(job: JobRecord) => void>();

  async putNode(record: NodeRecord): Promise<void> {
    this.revision++;
    this.nodes.set(record.id, structuredClone(record));
    const past = this.history.get(record.id) ?? [];
    past.push(structuredClone(record));
    this.history.set(record.id, past.slice(-HISTORY));
    this.nodeRevisions.set(record.id, this.revision);
    this.announce({ id: record.id, kind: "put" }, this.revision);
  }

  async deleteNode(id: string): Promise<void> {
    this.revision++;
    const existed = this.nodes.delete(id);
    this.history.delete(id);
    this.nodeRevisions.delete(id);
    if (existed) this.announce({ id, kind: "delete" }, this.revision);
  }

  /** Watchers hear about a change after the writer's await resolves, as they would over the network. */
  private announce(change: NodeChange, revision: number): void {
    queueMicrotask(() => {
      for (const w of this.nodeWatchers) w.deliver(change, revision);
    });
  }

  watchNodes(onChange: (change: NodeChange) => void): () => void {
    const watcher = new NodeWatcher(onChange);
    this.nodeWatchers.add(watcher);
    // The records present when the watch is set up, read then (a change announced before that is in it).
    queueMicrotask(() =>
      watcher.begin(
        [...this.nodeRevisions].sort((x, y) => x[1] - y[1]),
        this.revision,
      ),
    );
    return () => {
      watcher.active = false;
      this.nodeWatchers.delete(watcher);
    };
  }

  async listNodes(): Promise<NodeRecord[]> {
    return [...this.nodes.values()].map((n) => structuredClone(n));
  }

  async getNode(id: string): Promise<NodeRecord | undefined> {
    const record = this.nodes.get(id);
    return record && structuredClone(record);
  }

  async nodeHistory(id: string): Promise<NodeRecord[]> {
    return (this.history.get(id) ?? []).map((n) => structuredClone(n));
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
      for (const w of this.watchers) w.deliver(snapshot);
    });
    return this.revision;
  }

  watchRing(onRing: (ring: RingRecord, revision: number) => void): () => void {
    const watcher = new Watcher(onRing);
    this.watchers.add(watcher);
    const current = this.ring;
    if (current) queueMicrotask(() => watcher.deliver(current));
    return () => {
      watcher.active = false;
      this.watchers.delete(watcher);
    };
  }

  async acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<number | false> {
    const lease = this.leases.get(name);
    if (lease && lease.holder !== holder && lease.expiresAt > now) return false;
    this.leases.set(name, { holder, expiresAt: now + ttlMs });
    return ++this.leaseRevision;
  }

  async addScopeRoots(hosts: readonly string[]): Promise<void> {
    const added = hosts.filter((h) => !this.roots.has(h));
    for (const h of added) this.roots.add(h);
    if (added.length === 0) return;
    // Watchers hear about the write after the writer's await resolves, as they would over the network.
    queueMicrotask(() => {
      for (const w of this.rootWatchers) w([...added]);
    });
  }

  watchScopeRoots(onRoots: (hosts: string[]) => void): () => void {
    let active = true;
    const watcher = (hosts: string[]) => {
      if (active) onRoots(hosts);
    };
    this.rootWatchers.add(watcher);
    const current = [...this.roots];
    if (current.length > 0) queueMicrotask(() => watcher(current));
    return () => {
      active = false;
      this.rootWatchers.delete(watcher);
    };
  }

  async getJob(id: string): Promise<{ job: JobRecord; revision: number } | undefined> {
    const stored = this.jobs.get(id);
    return stored && { job: structuredClone(stored.job), revision: stored.revision };
  }

  async listJobs(): Promise<JobRecord[]> {
    return [...this.jobs.values()].map((s) => structuredClone(s.job));
  }

  async casJob(job: JobRecord, revision: number): Promise<number | undefined> {
    if ((this.jobs.get(job.id)?.revision ?? 0) !== revision) return undefined;
    this.revision++;
    const stored = structuredClone(job);
    this.jobs.set(job.id, { job: stored, revision: this.revision });
    // Watchers hear about the write after the writer's await resolves, as they would over the network.
    queueMicrotask(() => {
      for (const w of this.jobWatchers) w(structuredClone(stored));
    });
    return this.revision;
  }

  watchJobs(onJob: (job: JobRecord) => void): () => void {
    let active = true;
    const watcher = (job: JobRecord) => {
      if (active) onJob(job);
    };
    this.jobWatchers.add(watcher);
    const current = [...this.jobs.values()].map((s) => structuredClone(s.job));
    queueMicrotask(() => {
      for (const job of current) watcher(job);
    });
    return () => {
      active = false;
      this.jobWatchers.delete(watcher);
    };
  }

  async close(): Promise<void> {
    this.jobWatchers.clear();
    for (const w of this.watchers) w.active = false;
    this.watchers.clear();
    this.rootWatchers.clear();
    for (const w of this.nodeWatchers) w.active = false;
    this.nodeWatchers.clear();
  }
}

/**
 * One watchRing callback. A watch started while a write is in flight would hear that write twice (as the
 * current ring and as the write) and a stopped watch could still hear a queued delivery, so each watcher
 * delivers only newer revisions, and only while active, as the KV watch does.
 */
class Watcher {
  active = true;
  private lastRevision = 0;

  constructor(private readonly onRing: (ring: RingRecord, revision: number) => void) {}

  deliver(entry: { ring: RingRecord; revision: number }): void {
    if (!this.active || entry.revision <= this.lastRevision) return;
    this.lastRevision = entry.revision;
    this.onRing(structuredClone(entry.ring), entry.revision);
  }
}

/**
 * One watchNodes callback: the records present first (`begin`), then each later change once (newer
 * revisions only, none announced before `begin`: the snapshot holds them), only while active.
 */
class NodeWatcher {
  active = true;
  private lastRevision: number | undefined;

  constructor(private readonly onChange: (change: NodeChange) => void) {}

  begin(present: ReadonlyArray<readonly [string, number]>, revision: number): void {
    this.lastRevision = revision;
    for (const [id] of present) if (this.active) this.onChange({ id, kind: "put" });
  }

  deliver(change: NodeChange, revision: number): void {
    if (!this.active || this.lastRevision === undefined || revision <= this.lastRevision) return;
    this.lastRevision = revision;
    this.onChange({ ...change });
  }
}
