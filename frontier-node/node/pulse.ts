/**
 * A wake-up signal for loops that wait for "something may have changed" (a result applied, a handler
 * finished) instead of polling on a fixed tick: `wait(ms)` resolves at the next `notify()`, or after `ms`
 * at the latest, so a missed notification costs one timeout, never a hang.
 */
export class Pulse {
  private waiters = new Set<() => void>();

  notify(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const w of waiters) w();
  }

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}
