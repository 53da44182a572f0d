/**
 * A counting limiter for requests in flight. Each request holds at most one socket, so bounding
 * requests bounds busy sockets across all origins (idle keep-alive sockets are bounded separately,
 * by their short idle timeout). Waiters are served in arrival order; a waiter whose signal aborts
 * leaves the queue, and `close()` turns every waiter away.
 */
export class Slots {
  #free: number;
  #closed = false;
  readonly #waiters: Array<{ grant: () => void; refuse: (reason: unknown) => void }> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: size must be a positive integer, got ${size}`);
    this.#free = size;
  }

  /** Resolves once a slot is held; rejects with the signal's reason or when the limiter closes. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new SlotsClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        refuse: (reason: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Gives a held slot back, straight to the longest waiter if there is one. */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next.grant();
    else this.#free = Math.min(this.#free + 1, this.size);
  }

  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.refuse(new SlotsClosedError());
  }
}

export class SlotsClosedError extends Error {
  readonly code = "UND_ERR_CLOSED"; // same reaction as undici's own "closed": the fetch was aborted
  constructor() {
    super("the fetcher is closed");
    this.name = "SlotsClosedError";
  }
}
