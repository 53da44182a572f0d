/**
 * The fetch node's use of the region's FetchClaims (core/ports/fetch-claims.ts): before each fetch it
 * claims the task for the stored copy delivered, and after the task's outputs are stored it marks the
 * task done. What a claim tells the node:
 *
 *   new          fetch it (the first delivery of the first copy);
 *   again        this copy was delivered before, `ageMs` ago: a redelivery, whatever the delivery count
 *                says (a NATS server restarted without its consumer's latest state delivers it as new);
 *   other-copy   another stored copy of the task holds it: ack this one and drop it unfetched
 *                (`fetcher.tasks.duplicate-copy-dropped`);
 *   held         this copy's attempt, on another node, holds the task's outputs until the bus takes them
 *                (it renews that word while it waits): hand it back unfetched, its result is still to come;
 *   done         the task's outputs are stored already: ack and drop (`fetcher.tasks.done-dropped`);
 *   stale        the task was issued under an older ownership epoch of its partition than a task already
 *                claimed (`FetchTask.ownerEpoch`): its issuer no longer owns the partition (it was
 *                paused or cut off and has not noticed yet) and the new owner hands out its own task for
 *                the host; ack and drop unfetched (`fetcher.tasks.stale-owner-dropped`).
 *
 * When the claims cannot answer (Redis down or failing over) the task is fetched as if new: availability
 * first, since a second copy or a repeated first delivery exists only after a NATS restart, so a page
 * fetched twice for that needs both outages at once. Each such call is counted as
 * `fetcher.claims.unavailable`; the outage is logged when it starts, then at most once per `warnEveryMs`
 * with the count, and once when the claims answer again.
 */
import { errorFields } from "../core/errors/index.ts";
import type { FetchClaim, FetchClaims, Log, TaskOwner } from "../core/ports/index.ts";
import type { Counters } from "../core/stats/index.ts";

export interface CopyClaimsOptions {
  claims: FetchClaims;
  /** How long a claim (and a done mark) lasts: longer than a task may wait in the stream behind others. */
  ttlMs: number;
  counters: Counters;
  log: Log;
  now?: () => number;
  /** Least time between two warnings of one outage. Default 30 s. */
  warnEveryMs?: number;
}

export class CopyClaims {
  /** Calls left unanswered since the claims last answered; 0 while they answer. */
  private unanswered = 0;
  private lastWarnAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: CopyClaimsOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The claim of `copy` of the task; `new` when the claims cannot answer. Counts and logs the drops. */
  async claim(taskId: string, copy: number, owner?: TaskOwner): Promise<FetchClaim> {
    let answer: FetchClaim;
    try {
      answer = await this.opts.claims.claim(taskId, copy, this.opts.ttlMs, owner);
    } catch (error) {
      this.unavailable(error, "claim", taskId);
      return { kind: "new" };
    }
    this.answered();
    if (answer.kind === "other-copy") {
      this.opts.counters.add("fetcher.tasks.duplicate-copy-dropped");
      this.opts.log.info("a second stored copy of a task another copy holds: dropped unfetched", { task: taskId, copy });
    } else if (answer.kind === "stale") {
      this.opts.counters.add("fetcher.tasks.stale-owner-dropped");
      this.opts.log.warn("a task of a former owner of its partition: dropped unfetched", {
        task: taskId,
        copy,
        partition: owner?.partition,
        taskOwnerEpoch: owner?.epoch,
        partitionOwnerEpoch: answer.ownerEpoch,
      });
    } else if (answer.kind === "done") {
      this.opts.counters.add("fetcher.tasks.done-dropped");
      this.opts.log.info("a task delivered again after it was done: dropped unfetched", { task: taskId, copy });
    }
    return answer;
  }

  /** Says this copy's attempt holds the task's outputs for `forMs` more; when the claims cannot answer, only counts it. */
  async hold(taskId: string, copy: number, forMs: number): Promise<void> {
    try {
      await this.opts.claims.hold(taskId, copy, forMs);
      this.answered();
    } catch (error) {
      this.unavailable(error, "hold", taskId);
    }
  }

  /** Marks the task done (its outputs are stored); when the claims cannot answer, only counts it. */
  async done(taskId: string): Promise<void> {
    try {
      await this.opts.claims.done(taskId, this.opts.ttlMs);
      this.answered();
    } catch (error) {
      this.unavailable(error, "done", taskId);
    }
  }

  private answered(): void {
    if (this.unanswered === 0) return;
    this.opts.log.info("the fetch claims answer again", { unanswered: this.unanswered });
    this.unanswered = 0;
  }

  private unavailable(error: unknown, call: "claim" | "done" | "hold", taskId: string): void {
    this.opts.counters.add("fetcher.claims.unavailable");
    const now = this.now();
    const first = this.unanswered === 0;
    this.unanswered++;
    if (!first && now - this.lastWarnAt < (this.opts.warnEveryMs ?? 30_000)) return;
    this.lastWarnAt = now;
    this.opts.log.warn(
      first
        ? "the fetch claims cannot answer; tasks are fetched unclaimed until they can (a task delivered twice by a restarted NATS server may then be fetched twice)"
        : "the fetch claims still cannot answer; tasks are fetched unclaimed",
      errorFields(error, { call, task: taskId, unanswered: this.unanswered }),
    );
  }
}
