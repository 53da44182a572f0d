/**
 * Keeps admission honest when the seen-set lives in a cache that can lose keys (a region's Redis restarted
 * empty, or failed over to a replica that lagged: docs/cluster.md "Failure"). Such a seen-set refuses to
 * answer for a partition it may have lost (SeenSetLostError) instead of saying "not seen"; this module
 * then rebuilds the partition from the frontier's own store, which is the truth: every URL it knows of the
 * partition, queued ones first, then those with a state row (FrontierStore.knownUrlsInPartition says why
 * that order misses none). Until the rebuild is done the partition admits nothing: its admissions fail at
 * once (their messages are nak'ed and come back), so nothing is acked and nothing is lost.
 *
 * One race needs care: an admission that got its "not seen" answers from the cache just before the loss
 * commits its URLs a moment later. A rebuild that read the store before that commit would miss them. So
 * every stretch from a seen check to its commit is a window (`window()`), and a rebuild starts only once
 * every window open when the loss was noticed has closed; windows opened later get "lost" answers for the
 * partition and commit nothing of it.
 *
 * A partition this frontier starts serving is probed at once (`probe`), so one the cache never built (a
 * new cluster) or lost is rebuilt before its first URL arrives: found by that URL's admission instead,
 * the rebuild cost the URL a redelivery (its message nak'ed for 500 ms: measured on a fresh `cluster up`,
 * the seed's first request reached the web 0.57-0.67 s after `crawlctl seed add` returned; 0.08 s with
 * the probe).
 *
 * A partition that stops being served here while it is rebuilt is abandoned before the rebuild finishes,
 * so the cache keeps it marked as lost and its new owner rebuilds it from the store that holds it now.
 * A rebuild that fails (Redis still down, or lost again meanwhile) is retried with a growing delay.
 */
import { errorFields } from "../../core/errors/index.ts";
import { SeenSetLostError, type Log, type SeenSet } from "../../core/ports/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import type { FrontierStore } from "./store/frontier-store.ts";

export interface SeenRecoveryOptions {
  seen: SeenSet;
  store: FrontierStore;
  counters: Counters;
  /** Whether this frontier still serves partition p (a rebuild of a partition gone elsewhere is dropped). */
  serves: (p: number) => boolean;
  log?: Log;
  now: () => number;
}

/** URLs per page read from the store and sent to the seen-set. */
const PAGE_SIZE = 2_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

class PartitionGone extends Error {
  override readonly name = "PartitionGone";
}

export class SeenRecovery {
  private nextWindow = 0;
  private readonly open = new Set<number>();
  private readonly closedWaiters: Array<{ upTo: number; resolve: () => void }> = [];
  private readonly rebuilding = new Map<number, Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: SeenRecoveryOptions) {}

  /** Whether the seen-set can lose keys at all (it has `rebuild`). */
  get enabled(): boolean {
    return this.opts.seen.rebuild !== undefined;
  }

  /** Opens a window from a seen check to its commit; call the returned function once committed or failed. */
  window(): () => void {
    const id = this.nextWindow++;
    this.open.add(id);
    return () => {
      if (!this.open.delete(id)) return;
      this.wakeWaiters();
    };
  }

  /** Whether partition p is being rebuilt (its admissions are refused meanwhile). */
  isRebuilding(p: number): boolean {
    return this.rebuilding.has(p);
  }

  /** Partitions being rebuilt now. */
  get partitionsRebuilding(): number[] {
    return [...this.rebuilding.keys()].sort((a, b) => a - b);
  }

  /** The seen-set said these partitions lost keys: rebuild each (once) that this frontier serves. */
  lost(errors: readonly SeenSetLostError[]): void {
    const upTo = this.nextWindow;
    for (const error of errors) {
      const p = error.partition;
      if (this.rebuilding.has(p) || this.stopped || !this.opts.serves(p) || !this.enabled) continue;
      this.opts.counters.add(`seen.lost.${error.reason}`);
      const done = this.rebuild(p, error, upTo).finally(() => this.rebuilding.delete(p));
      this.rebuilding.set(p, done);
    }
  }

  /**
   * Asks the seen-set whether partition p can answer (SeenSet.probe) and rebuilds it now if it cannot.
   * Not awaited by anyone: a probe that fails otherwise (Redis down) leaves the loss, if any, to be found
   * by the first admission, as without the probe.
   */
  probe(p: number): void {
    const { seen } = this.opts;
    if (!this.enabled || !seen.probe || this.stopped || this.rebuilding.has(p)) return;
    seen.probe(p).catch((error: unknown) => {
      if (error instanceof SeenSetLostError) this.lost([error]);
    });
  }

  /** Stops retrying; rebuilds under way end at their next page. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.rebuilding.values()]);
  }

  private async rebuild(p: number, cause: SeenSetLostError, upTo: number): Promise<void> {
    const { log, counters, store, seen, now } = this.opts;
    await this.windowsClosed(upTo);
    const known = store.knowsPartition(p);
    // A partition never built, with nothing in the store, is simply new: no alarm for that. Nor for one
    // found half-built by another node (a node that joined just after the first one takes partitions over
    // while that one is still starting their seen-sets): with nothing of it in this store, nothing was lost.
    const quiet = (cause.reason === "missing" || cause.reason === "rebuilding") && !known;
    if (!quiet) {
      log?.warn(
        "the seen-set lost this partition's URLs; rebuilding it from the store before admitting more",
        errorFields(cause, { partition: p, reason: cause.reason }),
      );
    }
    for (let attempt = 0; ; attempt++) {
      const started = now();
      try {
        const added = await seen.rebuild!(p, this.pages(p));
        counters.add(quiet ? "seen.partitions-started" : "seen.partitions-rebuilt");
        if (added > 0) counters.add("seen.rebuilt-urls", added);
        if (!quiet) log?.info("seen-set of the partition rebuilt; admitting again", { partition: p, urls: added, ms: now() - started });
        return;
      } catch (error) {
        if (error instanceof PartitionGone || this.stopped) {
          log?.info("seen-set rebuild dropped: the partition is no longer served here; its new owner rebuilds it", { partition: p });
          return;
        }
        counters.add("seen.rebuild-failures");
        const delayMs = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(attempt, 10));
        log?.warn(
          "rebuilding the seen-set of a partition failed; retrying",
          errorFields(error, { partition: p, attempt: attempt + 1, retryInMs: delayMs }),
        );
        await sleep(delayMs);
        if (this.stopped || !this.opts.serves(p)) return;
      }
    }
  }

  /** Pages of the partition's known URLs; throws PartitionGone once it is not served here. */
  private *pages(p: number): Generator<string[]> {
    for (const page of this.opts.store.knownUrlsInPartition(p, PAGE_SIZE)) {
      if (this.stopped || !this.opts.serves(p)) throw new PartitionGone(`partition ${p} is no longer served here`);
      yield page;
    }
    if (this.stopped || !this.opts.serves(p)) throw new PartitionGone(`partition ${p} is no longer served here`);
  }

  /** Resolves once no window with an id below `upTo` is open. */
  private windowsClosed(upTo: number): Promise<void> {
    if (!this.anyOpenBelow(upTo)) return Promise.resolve();
    return new Promise((resolve) => this.closedWaiters.push({ upTo, resolve }));
  }

  private wakeWaiters(): void {
    for (let i = this.closedWaiters.length - 1; i >= 0; i--) {
      const w = this.closedWaiters[i]!;
      if (this.anyOpenBelow(w.upTo)) continue;
      this.closedWaiters.splice(i, 1);
      w.resolve();
    }
  }

  private anyOpenBelow(upTo: number): boolean {
    for (const id of this.open) if (id < upTo) return true;
    return false;
  }
}

/** The errors of a batch of seen checks that say a partition was lost. */
export function lostPartitions(errors: readonly unknown[]): SeenSetLostError[] {
  return errors.filter((e): e is SeenSetLostError => e instanceof SeenSetLostError);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
