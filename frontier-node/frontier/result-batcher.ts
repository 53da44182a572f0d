/**
 * Group commit for fetch results: results arriving close together are applied by one
 * `Frontier.completeMany` call (one transaction), instead of one transaction each. A batch closes when it
 * holds `maxBatch` results or `delayMs` after its first result, whichever comes first; one batch is applied
 * at a time and the next collects meanwhile. Each `submit` resolves when its result is committed, so the
 * caller (a crawl loop, or a consumer that acks after commit) keeps its ordering guarantees.
 */
import type { DiscoveredUrl, FetchResult } from "../../core/model/index.ts";

interface Pending {
  item: { result: FetchResult; links: readonly DiscoveredUrl[] };
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class ResultBatcher {
  private pending: Pending[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly apply: (items: ReadonlyArray<{ result: FetchResult; links: readonly DiscoveredUrl[] }>) => Promise<void>,
    // 50 ms: long enough to gather dozens of results on a busy crawl (one commit for all), short next to
    // the 1 s minimum gap a host waits anyway.
    private readonly opts: { maxBatch: number; delayMs: number } = { maxBatch: 512, delayMs: 50 },
  ) {}

  submit(result: FetchResult, links: readonly DiscoveredUrl[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item: { result, links }, resolve, reject });
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
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.apply(batch.map((p) => p.item)).then(
      () => batch.forEach((p) => p.resolve()),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    ).finally(() => {
      this.flushing = undefined;
      if (this.pending.length >= this.opts.maxBatch) this.kick();
      else if (this.pending.length > 0) this.timer ??= setTimeout(() => this.kick(), this.opts.delayMs);
    });
  }
}
