/**
 * A response deadline joined with the caller's signal: one AbortSignal that fires when the time is
 * up or the caller aborts, and that remembers which of the two it was, so the fetcher can tell a
 * `timeout` from an `aborted` fetch. It is built from an AbortController and a plain timer rather
 * than `AbortSignal.any([signal, AbortSignal.timeout(ms)])` because that timer cannot be cancelled:
 * at thousands of fetches per second every finished fetch would leave a 20 s timer and a joined
 * signal behind (measured on Bun 1.4: 200k fetches' worth held ~130 MB more RSS and cost 4.5x the
 * time). `setTimeout` is just as exact as `AbortSignal.timeout`, unlike undici's coarse timers.
 *
 * The deadline is the host's time to answer, so it counts only time this process was running. A process
 * stopped for a while (SIGSTOP, a long GC pause, a VM migration; or its event loop blocked) finds its timers
 * overdue all at once when it runs again, while the answer the host sent meanwhile still waits, unread, in
 * the socket. A timer that fires more than PAUSE_MS after it was due therefore does not end the fetch: the
 * deadline moves on by the time the process missed (at most the whole timeout again), so the pending answer
 * is read first. Seen on a fetch node frozen 30 s with a request answered 2 s after it was asked: the fetch
 * ended as a timeout booked against the host, its page asked again later.
 */

/** A timer this late means the process was not running (a box merely busy delays timers by milliseconds). */
export const PAUSE_MS = 1_000;
export class Deadline {
  readonly signal: AbortSignal;
  #timedOut = false;
  #callerAborted = false;
  #interrupted = false;
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout>;
  /** When the timer is due (performance.now()). */
  #dueAt: number;
  #pausedMs = 0;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => {
    this.#callerAborted = true;
    this.#controller.abort(this.#caller?.reason);
  };

  constructor(
    readonly timeoutMs: number,
    caller?: AbortSignal,
  ) {
    this.signal = this.#controller.signal;
    this.#caller = caller;
    this.#dueAt = performance.now() + timeoutMs;
    this.#timer = setTimeout(this.#onTimer, timeoutMs);
    if (caller?.aborted) this.#onCallerAbort();
    else caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  readonly #onTimer = (): void => {
    const late = performance.now() - this.#dueAt;
    if (late > PAUSE_MS) {
      // The process did not run on time: give the host back the time it lost, so what it sent meanwhile is read.
      const more = Math.min(late, this.timeoutMs);
      this.#pausedMs += late;
      this.#dueAt = performance.now() + more;
      this.#timer = setTimeout(this.#onTimer, more);
      return;
    }
    this.#timedOut = true;
    this.#controller.abort(new DOMException(`response deadline of ${this.timeoutMs} ms passed`, "TimeoutError"));
  };

  /** How long this process was found not running past the deadline's time (0: never): time not counted. */
  get pausedMs(): number {
    return this.#pausedMs;
  }

  /** The deadline fired before the caller aborted (or the fetcher interrupted). */
  get timedOut(): boolean {
    return this.#timedOut && !this.#callerAborted && !this.#interrupted;
  }

  /**
   * Ends the fetch for a reason of the fetcher's own, neither the caller's nor the time's: the egress proxy
   * found out of reach by another request while this one ran (fetcher.ts). Nothing if it already ended.
   */
  interrupt(reason: Error): void {
    if (this.signal.aborted) return;
    this.#interrupted = true;
    clearTimeout(this.#timer);
    this.#controller.abort(reason);
  }

  /** The fetcher interrupted it before the time was up or the caller aborted. */
  get interrupted(): boolean {
    return this.#interrupted && !this.#callerAborted;
  }

  /** The caller aborted (before or after the deadline). */
  get callerAborted(): boolean {
    return this.#callerAborted;
  }

  /** Stops the timer and lets go of the caller's signal; call once the fetch is over. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }
}
