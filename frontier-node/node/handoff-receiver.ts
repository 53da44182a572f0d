/**
 * The receiving side of a partition handoff: FrontierService.Handoff. The first chunk is checked against
 * the ring as stored now (not this node's possibly late copy): the partition must be owned by this node,
 * and the sender must be the node the ring names as `previous`. Each chunk is committed to the store as it
 * arrives (importChunk, one transaction each, idempotent, so a retried stream leaves one copy). On the
 * `done` chunk the receiver clears `previous[p]` with a compare-and-set of the ring (`completeHandoff`,
 * re-read and retried on conflict) and only then answers; its own ring watch then makes it serve p.
 *
 * A partition imported while already served (the coordinator gave it over at once, believing the giver
 * dead, and the giver turned out alive) is reloaded into the frontier, so the imported hosts are seen.
 *
 * With replicated partition state (`replicated`) the giver's rows are the partition, whole: the first chunk
 * empties whatever this store still held of it (left from an earlier tenure), the sender must be exactly
 * the ring's `previous`, and a partition this node serves or is rebuilding from the replica is refused
 * (its rows come from the replica, and an import would mix two copies). Queued URLs keep the giver's
 * sequence numbers (the replica's log names queue rows by them). A handoff received whole is reported
 * (`onHandedIn`) before the ring is marked, so the partition is claimed from the imported rows instead of
 * restored.
 */
import { completeHandoff } from "../../core/cluster/index.ts";
import { type ClusterState } from "../../core/ports/index.ts";
import type { Priority } from "../../core/model/index.ts";
import type { HandoffRequest, HandoffResponse } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import { FailedPreconditionError, InvalidArgumentError, UnavailableError } from "../../core/errors/index.ts";
import { errorInfo, type Log } from "../../kit/log/index.ts";
import type { Frontier, FrontierStore } from "../../engine/frontier/index.ts";
import { importChunk, type HandoffChunk } from "../../engine/frontier/index.ts";

export interface HandoffReceiverOptions {
  nodeId: string;
  region: string;
  partitions: number;
  state: Pick<ClusterState, "getRing" | "casRing">;
  store: FrontierStore;
  frontier: Frontier;
  /** URLs imported (a local Bloom seen-set learns them; a Redis one already has them). */
  onImportedUrls?: (urls: string[]) => void;
  /** Re-reads partition p into the frontier (it was served while the import ran). */
  reload: (p: number) => void;
  /** Replicated partition state: see the module comment. */
  replicated?: {
    /** Whether p is being rebuilt from the replica now. */
    preparing: (p: number) => boolean;
    /** p was received whole, and the ring (of this epoch) marked it handed over. */
    onHandedIn: (p: number, ringEpoch: number) => void;
  };
  log: Log;
}

const MAX_CAS_ATTEMPTS = 20;

export class HandoffReceiver {
  /** The ring being marked for a finished handoff: the next one waits (they would only conflict). */
  private marking: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: HandoffReceiverOptions) {}

  async receive(stream: AsyncIterable<HandoffRequest>): Promise<HandoffResponse> {
    let partition: number | undefined;
    let from = "";
    let queued = 0;
    let urls = 0;
    let done = false;
    let first = true;
    let ringEpoch = 0;
    for await (const req of stream) {
      if (partition === undefined) {
        partition = req.partition;
        from = req.fromNode;
        ringEpoch = await this.checkFirst(partition, from);
      } else if (req.partition !== partition) {
        throw new InvalidArgumentError(`a handoff stream carries one partition: got ${req.partition} after ${partition}`);
      }
      const chunk = toChunk(req);
      if (this.opts.replicated) this.prepareImport(partition, first);
      first = false;
      // With replicated state the rows keep the giver's sequence numbers: the partition's journal in the
      // replica names queue rows by them, and this node's rows must be the same rows.
      importChunk(this.opts.store, chunk, { verbatim: this.opts.replicated !== undefined && req.queued.every((q) => q.seq > 0n) });
      queued += chunk.queued.length;
      urls += chunk.urls.length;
      if (chunk.urls.length > 0) this.opts.onImportedUrls?.(chunk.urls.map((u) => u.url));
      if (req.done) {
        done = true;
        break;
      }
    }
    if (partition === undefined) throw new InvalidArgumentError("empty handoff stream");
    if (!done)
      throw new InvalidArgumentError(`handoff stream of partition ${partition} ended without its done chunk; the sender must retry`);
    this.opts.frontier.recount();
    // Told before the ring is marked: marking it makes this node serve p at once (its ring watch may run
    // before complete() returns), and p must then be claimed from these rows, not restored.
    this.opts.replicated?.onHandedIn(partition, ringEpoch);
    // Handoffs arriving together (a node joining takes a third of the ring at once) each rewrite the whole
    // ring: one at a time, each reads the ring the previous one wrote instead of losing compare-and-sets.
    const marked = this.marking.then(() => this.complete(partition, from));
    this.marking = marked.catch(() => {});
    await marked;
    if (this.opts.frontier.serves(partition)) this.opts.reload(partition);
    const c = this.opts.frontier.counters;
    c.add("handoff.received.partitions");
    c.add("handoff.received.queued", queued);
    c.add("handoff.received.urls", urls);
    this.opts.log.info("partition received", { partition, from, queued, urls });
    return { partition, queuedReceived: BigInt(queued), urlsReceived: BigInt(urls) };
  }

  /** Checks the first chunk against the ring as stored now; returns that ring's epoch. */
  private async checkFirst(p: number, from: string): Promise<number> {
    if (!Number.isInteger(p) || p < 0 || p >= this.opts.partitions) {
      throw new InvalidArgumentError(`partition ${p} is out of range (this cluster has ${this.opts.partitions})`);
    }
    if (!from) throw new InvalidArgumentError("a handoff must name the node it comes from (from_node)");
    const ring = (await this.readRing()).ring;
    const r = ring.regions[this.opts.region];
    const owner = r?.owners[p] ?? "";
    const previous = r?.previous[p] ?? "";
    if (owner !== this.opts.nodeId) {
      throw new FailedPreconditionError(
        `partition ${p} of region ${this.opts.region} is owned by ${owner || "no node"}, not by ${this.opts.nodeId}`,
      );
    }
    if (previous !== from && (previous !== "" || this.opts.replicated)) {
      throw new FailedPreconditionError(
        `partition ${p} of region ${this.opts.region} is to be handed over by ${previous || "no node (it is rebuilt from its replica)"}, not by ${from}`,
      );
    }
    return ring.epoch;
  }

  /** Replicated state: refuses an import into a partition whose rows come from the replica; empties it first. */
  private prepareImport(p: number, first: boolean): void {
    if (this.opts.frontier.serves(p) || this.opts.replicated?.preparing(p)) {
      throw new FailedPreconditionError(
        `partition ${p} of region ${this.opts.region} is served here from its replica; a handoff of it is refused`,
      );
    }
    if (first) this.opts.store.tx(() => this.opts.store.deletePartition(p));
  }

  /** Clears previous[p] (if it still names `from`) by compare-and-set, re-reading on conflict. */
  private async complete(p: number, from: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { ring, revision } = await this.readRing();
      const previous = ring.regions[this.opts.region]?.previous[p] ?? "";
      if (previous !== from) return; // already cleared (or the coordinator moved on): nothing to mark
      const written = await this.opts.state.casRing(completeHandoff(ring, this.opts.region, p), revision);
      if (written !== undefined) return;
    }
    throw new UnavailableError(`could not mark partition ${p} as handed over: the ring kept changing; the sender will retry`);
  }

  private async readRing() {
    let current;
    try {
      current = await this.opts.state.getRing();
    } catch (error) {
      throw new UnavailableError(`the cluster state is unreachable: ${errorInfo(error).message}`, { cause: error });
    }
    if (!current) throw new FailedPreconditionError("there is no ring yet");
    return current;
  }
}

function toChunk(req: HandoffRequest): HandoffChunk {
  return {
    partition: req.partition,
    queued: req.queued.map((q, i) => {
      if (q.priority < 1 || q.priority > 3)
        throw new InvalidArgumentError(`queued URL ${q.url} has priority ${q.priority}; expected 1, 2 or 3`);
      if (q.kind !== "" && q.kind !== "media")
        throw new InvalidArgumentError(`queued URL ${q.url} has kind ${JSON.stringify(q.kind)}; expected "media" or none`);
      const kind = q.kind === "media" ? ("media" as const) : ("page" as const);
      // The giver's seq when sent (kept by a replicated receiver); otherwise the receiving store assigns one, in
      // the chunk's order.
      const seq = q.seq > 0n ? Number(q.seq) : i;
      return {
        host: q.host,
        partition: req.partition,
        priority: q.priority as Priority,
        seq,
        url: q.url,
        depth: q.depth,
        hops: q.hops,
        kind,
        ...(q.job ? { job: q.job } : {}),
      };
    }),
    hosts: req.hosts.map((h) => ({ host: h.host, stateJson: h.stateJson, robotsJson: h.robotsJson, sitemapsJson: h.sitemapsJson })),
    urls: req.urls.map((u) => ({ url: u.url, stateJson: u.stateJson })),
    scopeRoots: req.scopeRoots,
    jobCounts: req.jobCounts.map((c) => ({ job: c.job, pages: Number(c.pages), errors: Number(c.errors) })),
  };
}
