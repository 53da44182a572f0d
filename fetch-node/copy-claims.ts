/**
 * Which stored copy of a fetch task this node may fetch: the FetchNode asks before every fetch. A task is
 * stored twice when a frontier node publishes it again after the ack of its first publish was lost with a
 * NATS server that then restarted (its duplicate window rebuilt from the messages it still holds, without
 * the first copy, already fetched and acked). Fetching both copies would be two requests to the host, the
 * second maybe while the frontier's next task for it is fetched: a broken gap. So the task is claimed, in
 * the region's shared FetchClaims (Redis), for the copy delivered (`Delivery.copy`); the copy that holds
 * it is fetched (every redelivery of it too: a node that died mid-fetch, a nak), any other copy is acked
 * and dropped, counted as `fetcher.tasks.duplicate-copy-dropped`.
 *
 * When the claims cannot answer (Redis down or failing over) the task is fetched anyway: availability
 * first, since two copies of a task exist only after a NATS restart, so a duplicate fetch needs both
 * outages at once. Each such fetch is counted as `fetcher.claims.unavailable`; the outage is logged when
 * it starts, then at most once per `warnEveryMs` with the count, and once when the claims answer again.
 */
import { errorFields } from "../core/errors/index.ts";
import type { FetchClaims, Log } from "../core/ports/index.ts";
import type { Counters } from "../core/stats/index.ts";

export interface CopyClaimsOptions {
  claims: FetchClaims;
  /** How long a claim lasts: longer than a task may wait in the stream behind others. */
  ttlMs: number;
  counters: Counters;
  log: Log;
  now?: () => number;
  /** Least time between two warnings of one outage. Default 30 s. */
  warnEveryMs?: number;
}

export class CopyClaims {
  /** Claims left unanswered since the claims last answered; 0 while they answer. */
  private unanswered = 0;
  private lastWarnAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: CopyClaimsOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** True: fetch this copy. False: another stored copy of the task holds it; ack this one and drop it. */
  async mayFetch(taskId: string, copy: number): Promise<boolean> {
    let answer: Awaited<ReturnType<FetchClaims["claim"]>>;
    try {
      answer = await this.opts.claims.claim(taskId, copy, this.opts.ttlMs);
    } catch (error) {
      this.unavailable(error, taskId);
      return true;
    }
    if (this.unanswered > 0) {
      this.opts.log.info("the fetch claims answer again", { fetchedUnclaimed: this.unanswered });
      this.unanswered = 0;
    }
    if (answer === "mine") return true;
    this.opts.counters.add("fetcher.tasks.duplicate-copy-dropped");
    this.opts.log.info("a second stored copy of a task another copy holds: dropped unfetched", { task: taskId, copy });
    return false;
  }

  private unavailable(error: unknown, taskId: string): void {
    this.opts.counters.add("fetcher.claims.unavailable");
    const now = this.now();
    const first = this.unanswered === 0;
    this.unanswered++;
    if (!first && now - this.lastWarnAt < (this.opts.warnEveryMs ?? 30_000)) return;
    this.lastWarnAt = now;
    this.opts.log.warn(
      first
        ? "the fetch claims cannot answer; tasks are fetched unclaimed until they can (a task stored twice may then be fetched twice)"
        : "the fetch claims still cannot answer; tasks are fetched unclaimed",
      errorFields(error, { task: taskId, fetchedUnclaimed: this.unanswered }),
    );
  }
}
