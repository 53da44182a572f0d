/**
 * Group commit: items arriving close together are applied by one call (one transaction) instead of one
 * call each. A group closes when it holds `maxBatch` items or `delayMs` after its first item, whichever
 * comes first; one group is applied at a time and the next collects meanwhile. Each `submit` resolves when
 * its item is committed (or rejects with the group's error), so a caller that acks a message after commit
 * keeps that guarantee. Used for fetch results (Frontier.completeMany) and for discovered-URL messages
 * (Frontier.admit).
 */
interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  maxBatch: number;
  delayMs: number;
}

// 50 ms: long enough to gather dozens of items on a busy crawl (one commit for all), short next to the 1 s
// minimum gap a host waits anyway.
const DEFAULTS: GroupCommitOptions = { maxBatch: 512, delayMs: 50 };

export class GroupCommit<T> {
  private pending: Pending<T>[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly apply: (items: readonly T[]) => Promise<unknown>,
    private readonly opts: GroupCommitOptions = DEFAULTS,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.opts.maxBatch) this.kick();
      else this.timer ??= setTimeout(() => this.kick(), this.opts.delayMs);
    });
  }

  /** Applies everything submitted so far; resolves when it is committed. */
  async flush(): Promise<void> {
    while (this.pending.length > 0 || this.flushing) {
      this.kick();
      await this.flushing;
    }
  }

  private kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.flushing || this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    this.flushing = this.apply(group.map((p) => p.item))
      .then(
        () => group.forEach((p) => p.resolve()),
        (error: unknown) => group.forEach((p) => p.reject(error)),
      )
      .finally(() => {
        this.flushing = undefined;
        if (this.pending.length >= this.opts.maxBatch) this.kick();
        else if (this.pending.length > 0) this.timer ??= setTimeout(() => this.kick(), this.opts.delayMs);
      });
  }
}
