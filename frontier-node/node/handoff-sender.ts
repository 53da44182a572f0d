/**
 * The giving side of a partition handoff (docs/cluster.md, "Membership and ring"). When the ring names
 * this node as `previous[p]` of a partition now owned by another node, the partition manager has already
 * stopped dispatching p's hosts and pulling `urls-<p>`; `HandoffSender.give` then
 *
 *   1. waits until p has nothing in flight (p's results are still consumed meanwhile) and no admission of
 *      p is half done,
 *   2. streams p's store content (exportPartition: host states, robots.txt and sitemaps, URL states, queued
 *      URLs, its seeds' scope roots) to the owner's FrontierService.Handoff, the owner's address taken from
 *      its NodeRecord,
 *   3. once the owner has committed it (the call returns), deletes p from the local store.
 *
 * With replicated partition state, every row of p committed here is first stored in the replica
 * (`beforeExport`), so the log the new owner continues from holds all of p's past; once p is deleted here,
 * `afterHandover` forgets this store's claim of it. A store that does not hold p's current copy (`holds`:
 * p's latest claim in the replica is another store's, or p was never prepared here, e.g. moved on while its
 * restore still waited its turn) streams nothing: the receiver would replace its rows of p with what this
 * store has, maybe nothing at all. It clears `previous[p]` in the ring instead, and the owner rebuilds p
 * from the replica. Nor is p given while it is being prepared here (`preparing`): half restored.
 *
 * Every attempt re-reads the ring first, so a retry follows the ring: a new owner gets the partition, a
 * partition that came back to this node is kept, and one that is no longer this node's to give (the
 * coordinator decided this node was dead) stays in the store untouched. A stream that broke after the
 * receiver committed is recognized by the ring: the owner it was sent to has cleared `previous[p]`.
 */
import { completeHandoff, type RingRecord } from "../../core/cluster/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";
import type { HandoffRequest, HandoffResponse } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import { errorFields, type Log } from "../../kit/log/index.ts";
import type { Frontier, FrontierStore } from "../../engine/frontier/index.ts";
import { exportPartition } from "../../engine/frontier/index.ts";

/** A connection to another frontier node's Handoff RPC (FrontierClient in production). */
export interface HandoffPeer {
  handoff(chunks: AsyncIterable<HandoffRequest>, opts?: { deadlineMs?: number; signal?: AbortSignal }): Promise<HandoffResponse>;
  close(): void;
}

export interface HandoffSenderOptions {
  nodeId: string;
  region: string;
  state: Pick<ClusterState, "getRing" | "listNodes" | "casRing">;
  store: FrontierStore;
  frontier: Frontier;
  dial: (address: string, peerId: string) => HandoffPeer;
  /** Resolves when something may have changed (a result applied, a handler finished), or after `ms`. */
  progress: (ms: number) => Promise<void>;
  /** True while an admission of partition p is being committed (its urls handler is running). */
  admitting: (p: number) => boolean;
  /** True while partition p is being prepared (restored from the replica) here; absent: never. */
  preparing?: (p: number) => boolean;
  /**
   * Replicated partition state: whether this store holds p's current copy (see the module comment);
   * rejects when the replica cannot say now (asked again). Absent: the store always holds p.
   */
  holds?: (p: number) => Promise<boolean>;
  /**
   * Stops this node consuming p's results, once it has nothing of p in flight: from the moment the new
   * owner serves p, every result of p is the new owner's, and one consumed here would be lost to it.
   */
  releaseResults: (p: number) => Promise<void>;
  /** Resolves once p's committed rows are in the replica (replicated partition state); absent: none. */
  beforeExport?: (p: number, signal: AbortSignal) => Promise<void>;
  /** p was deleted here after its handover (replicated partition state). */
  afterHandover?: (p: number) => void;
  /** Rows of each kind per streamed chunk. */
  chunkSize?: number;
  /** Deadline of one whole handoff stream. */
  streamDeadlineMs?: number;
  log: Log;
}

export type HandoffOutcome = "handed-over" | "kept" | "left-in-store" | "not-held" | "stopped";

const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 10_000;

export class HandoffSender {
  constructor(private readonly opts: HandoffSenderOptions) {}

  /** Hands partition p to its owner under the current ring; resolves with what became of it. */
  async give(p: number, signal: AbortSignal): Promise<HandoffOutcome> {
    const { frontier, log } = this.opts;
    const busy = () => frontier.inFlightIn(p) > 0 || this.opts.admitting(p) || this.opts.preparing?.(p) === true;
    while (!signal.aborted && busy()) await this.opts.progress(1_000);
    if (!signal.aborted) await this.opts.releaseResults(p);
    try {
      if (!signal.aborted) await this.opts.beforeExport?.(p, signal);
    } catch (error) {
      if (signal.aborted) return "stopped";
      throw error;
    }
    let sentTo: string | undefined;
    for (let attempt = 0; !signal.aborted; attempt++) {
      if (attempt > 0) await this.opts.progress(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(attempt, 10)));
      if (signal.aborted) break;
      let ring: RingRecord | undefined;
      try {
        ring = (await this.opts.state.getRing())?.ring;
      } catch (error) {
        log.warn("cannot read the ring for a handoff; retrying", errorFields(error, { partition: p }));
        continue;
      }
      const r = ring?.regions[this.opts.region];
      const owner = r?.owners[p] ?? "";
      const previous = r?.previous[p] ?? "";
      if (owner === this.opts.nodeId) return "kept";
      if (previous !== this.opts.nodeId) {
        if (sentTo !== undefined && owner === sentTo) {
          this.dropLocal(p);
          return "handed-over";
        }
        if (this.holdsNothing(p)) return "handed-over"; // a late ring naming a handoff already done
        log.warn("partition is no longer this node's to hand over; its data stays in the local store", { partition: p, owner });
        return "left-in-store";
      }
      if (owner === "") {
        if (attempt % 20 === 0)
          log.warn("partition has no owner to hand over to (no live frontier node in the region); waiting", { partition: p });
        continue;
      }
      if (this.opts.holds) {
        let held: boolean;
        try {
          held = await this.opts.holds(p);
        } catch (error) {
          log.warn("cannot tell whether this store holds the partition's current copy; retrying", errorFields(error, { partition: p }));
          continue;
        }
        if (!held) {
          if (await this.release(p)) {
            frontier.counters.add("handoff.not-held");
            log.warn(
              "partition named as handed over by this node, which holds no current copy of it; the owner rebuilds it from the replica",
              {
                partition: p,
                owner,
              },
            );
            return "not-held";
          }
          continue;
        }
      }
      const address = await this.addressOf(owner);
      if (!address) {
        if (attempt % 20 === 0) log.warn("the new owner has no gRPC address in its node record yet; waiting", { partition: p, owner });
        continue;
      }
      sentTo = owner;
      try {
        await this.stream(p, owner, address, signal);
        this.dropLocal(p);
        log.info("partition handed over", { partition: p, to: owner });
        return "handed-over";
      } catch (error) {
        frontier.counters.add("handoff.send-failures");
        log.warn("handoff stream failed; retrying", errorFields(error, { partition: p, to: owner, address }));
      }
    }
    return "stopped";
  }

  private async stream(p: number, owner: string, address: string, signal: AbortSignal): Promise<void> {
    const sent = { queued: 0, urls: 0 };
    const peer = this.opts.dial(address, owner);
    try {
      const response = await peer.handoff(this.chunks(p, sent), { deadlineMs: this.opts.streamDeadlineMs ?? 10 * 60_000, signal });
      if (response.partition !== p || Number(response.queuedReceived) !== sent.queued || Number(response.urlsReceived) !== sent.urls) {
        throw new Error(
          `the receiver acknowledged partition ${response.partition} with ${response.queuedReceived} queued and ${response.urlsReceived} URL states, but ${sent.queued} and ${sent.urls} were sent for partition ${p}`,
        );
      }
      this.opts.frontier.counters.add("handoff.sent.partitions");
      this.opts.frontier.counters.add("handoff.sent.queued", sent.queued);
      this.opts.frontier.counters.add("handoff.sent.urls", sent.urls);
    } finally {
      peer.close();
    }
  }

  private async *chunks(p: number, sent: { queued: number; urls: number }): AsyncGenerator<HandoffRequest> {
    const fromNode = this.opts.nodeId;
    for (const chunk of exportPartition(this.opts.store, p, this.opts.chunkSize)) {
      sent.queued += chunk.queued.length;
      sent.urls += chunk.urls.length;
      yield {
        partition: p,
        fromNode,
        queued: chunk.queued.map((q) => ({
          host: q.host,
          priority: q.priority,
          url: q.url,
          depth: q.depth,
          hops: q.hops,
          seq: BigInt(q.seq),
          kind: q.kind === "media" ? "media" : "",
          job: q.job ?? 0,
        })),
        hosts: chunk.hosts,
        urls: chunk.urls,
        done: false,
        scopeRoots: chunk.scopeRoots ?? [],
        jobCounts: (chunk.jobCounts ?? []).map((c) => ({ job: c.job, pages: BigInt(c.pages), errors: BigInt(c.errors) })),
      };
    }
    yield { partition: p, fromNode, queued: [], hosts: [], urls: [], done: true, scopeRoots: [], jobCounts: [] };
  }

  /** Clears previous[p] (still this node) by compare-and-set; false when the ring changed meanwhile (read again). */
  private async release(p: number): Promise<boolean> {
    try {
      const current = await this.opts.state.getRing();
      if (!current || current.ring.regions[this.opts.region]?.previous[p] !== this.opts.nodeId) return false;
      return (await this.opts.state.casRing(completeHandoff(current.ring, this.opts.region, p), current.revision)) !== undefined;
    } catch (error) {
      this.opts.log.warn("cannot clear the partition's handoff in the ring; retrying", errorFields(error, { partition: p }));
      return false;
    }
  }

  private holdsNothing(p: number): boolean {
    const { store } = this.opts;
    return (
      store.queuedInPartition(p, undefined, 1).length === 0 &&
      store.urlsInPartition(p, "", 1).length === 0 &&
      store.hostsInPartition(p).length === 0
    );
  }

  private dropLocal(p: number): void {
    this.opts.store.tx(() => this.opts.store.deletePartition(p));
    this.opts.frontier.recount();
    this.opts.afterHandover?.(p);
  }

  private async addressOf(id: string): Promise<string | undefined> {
    try {
      const record = (await this.opts.state.listNodes()).find((n) => n.id === id);
      return record?.grpcAddress || undefined;
    } catch {
      return undefined;
    }
  }
}
