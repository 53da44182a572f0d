/**
 * The page's own host during a render: the frontier handed this task out as the host's one request in
 * flight, so the host's turn is the task's until its result goes back. Requests the page makes to its own
 * host are therefore made here, one at a time, each after the gap the frontier's rule asks after the
 * request before (the task's `hostGapMs`, the gap the host's state holds with its margin, or the fetch-time
 * multiple of the last request, whichever is longer). The page's own fetch is the first request.
 *
 * A request whose turn would come after the render's deadline is not made (it is failed to the page), so
 * the deadline bounds how long a render keeps its host. A 429 or 503 answer ends the host's turn: no later
 * request of the render goes to it. `span()` tells the result what to report (see render-step.ts): the end
 * of the last request, from which the frontier counts the next gap, and the longest single request, which
 * the gap multiplier reads.
 */

export interface HostTurnOptions {
  /** The task's hostGapMs: the host's current gap, margin included. */
  hostGapMs: number;
  /** The policy's gap multiplier and margin. */
  multiplier: number;
  marginMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One request made in the host's turn: when it started and ended, and its status (0: no response). */
export interface TurnRequest<T> {
  startedAt: number;
  endedAt: number;
  status: number;
  value: T;
}

export class HostTurn {
  private chain: Promise<unknown> = Promise.resolve();
  private lastEndedAt: number;
  private lastDurationMs: number;
  private longestMs: number;
  private stopped = false;
  /** Requests made in this turn after the page itself. */
  requests = 0;

  constructor(
    private readonly opts: HostTurnOptions,
    page: { startedAt: number; endedAt: number; pausedMs?: number },
  ) {
    this.lastEndedAt = page.endedAt;
    this.lastDurationMs = Math.max(0, page.endedAt - page.startedAt - (page.pausedMs ?? 0));
    this.longestMs = this.lastDurationMs;
  }

  /** When the next request may start. */
  nextStartAt(): number {
    return this.lastEndedAt + Math.max(this.opts.hostGapMs, this.opts.multiplier * this.lastDurationMs + this.opts.marginMs);
  }

  /**
   * Runs `request` in its turn and resolves with what it gave; resolves undefined without running it when
   * its turn would start after `deadlineAt`, the host asked us to slow down, or `signal` aborted.
   */
  take<T>(deadlineAt: number, signal: AbortSignal, request: () => Promise<TurnRequest<T>>): Promise<T | undefined> {
    const mine = this.chain.then(async () => {
      if (this.stopped || signal.aborted) return undefined;
      const startAt = this.nextStartAt();
      if (startAt > deadlineAt) return undefined;
      const wait = Math.ceil(startAt - this.opts.now());
      if (wait > 0) await this.opts.sleep(wait, signal);
      const done = await request();
      this.requests++;
      this.lastEndedAt = Math.max(this.lastEndedAt, done.endedAt);
      this.lastDurationMs = Math.max(0, done.endedAt - done.startedAt);
      this.longestMs = Math.max(this.longestMs, this.lastDurationMs);
      if (done.status === 429 || done.status === 503) this.stopped = true;
      return done.value;
    });
    this.chain = mine.catch(() => undefined);
    return mine.catch(() => undefined);
  }

  /** Waits for the request in progress, if any (a render ends only once its host is quiet). */
  async quiet(): Promise<void> {
    await this.chain;
  }

  /** The end of the last request to the host, and the longest request's duration. */
  span(): { endedAt: number; longestMs: number; throttled: boolean } {
    return { endedAt: this.lastEndedAt, longestMs: this.longestMs, throttled: this.stopped };
  }
}
