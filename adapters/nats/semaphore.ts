/**
 * A counting semaphore with a FIFO queue: the bound behind the publish window (at most N publishes
 * awaiting their JetStream ack) and a subscription's handler concurrency.
 */
export class Semaphore {
  private inUse = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be a positive integer, got ${size}`);
  }

  get active(): number {
    return this.inUse;
  }

  /** Resolves when a slot is free; the caller must release() it exactly once. */
  acquire(): Promise<void> {
    if (this.inUse < this.size) {
      this.inUse++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Takes a slot only if one is free right now. */
  tryAcquire(): boolean {
    if (this.inUse >= this.size) return false;
    this.inUse++;
    return true;
  }

  release(): void {
    const next = this.waiters.shift();
    if (next)
      next(); // the slot passes straight to the next waiter
    else this.inUse--;
  }

  /** Runs `fn` in a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
