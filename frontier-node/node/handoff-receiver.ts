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
  log: Log;
}

const MAX_CAS_ATTEMPTS = 20;

export class HandoffReceiver {
  constructor(private readonly opts: HandoffReceiverOptions) {}

  async receive(stream: AsyncIterable<HandoffRequest>): Promise<HandoffResponse> {
    let partition: number | undefined;
    let from = "";
    let queued = 0;
    let urls = 0;
    let done = false;
    for await (const req of stream) {
      if (partition === undefined) {
        partition = req.partition;
        from = req.fromNode;
        await this.checkFirst(partition, from);
      } else if (req.partition !== partition) {
        throw new InvalidArgumentError(`a handoff stream carries one partition: got ${req.partition} after ${partition}`);
      }
      const chunk = toChunk(req);
      importChunk(this.opts.store, chunk);
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
    await this.complete(partition, from);
    if (this.opts.frontier.serves(partition)) this.opts.reload(partition);
    const c = this.opts.frontier.counters;
    c.add("handoff.received.partitions");
    c.add("handoff.received.queued", queued);
    c.add("handoff.received.urls", urls);
    this.opts.log.info("partition received", { partition, from, queued, urls });
    return { partition, queuedReceived: BigInt(queued), urlsReceived: BigInt(urls) };
  }

  private async checkFirst(p: number, from: string): Promise<void> {
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
    if (previous !== from && previous !== "") {
      throw new FailedPreconditionError(`partition ${p} of region ${this.opts.region} is to be handed over by ${previous}, not by ${from}`);
    }
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
      // seq is assigned by the receiving store; the chunk's order is kept.
      if (q.kind !== "" && q.kind !== "media")
        throw new InvalidArgumentError(`queued URL ${q.url} has kind ${JSON.stringify(q.kind)}; expected "media" or none`);
      const kind = q.kind === "media" ? ("media" as const) : ("page" as const);
      return {
        host: q.host,
        partition: req.partition,
        priority: q.priority as Priority,
        seq: i,
        url: q.url,
        depth: q.depth,
        hops: q.hops,
        kind,
      };
    }),
    hosts: req.hosts.map((h) => ({ host: h.host, stateJson: h.stateJson, robotsJson: h.robotsJson })),
    urls: req.urls.map((u) => ({ url: u.url, stateJson: u.stateJson })),
  };
}
