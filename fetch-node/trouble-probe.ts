/**
 * A fetch node in local trouble checks its own side by itself, without a task.
 *
 * LocalTrouble ends an episode when a fetch gets through, and its probe is the next task the node tries.
 * With host affinity a node in trouble gets no task: its `localTrouble` gauge makes every frontier node
 * send its hosts to the others, and its heir pulls its inbox (fetch-node/inbox-heirs.ts). So it never
 * tried a probe and stayed out of the crawl for good. Seen: the fetch node cut from the web for 20 s
 * fetched nothing after the cut had healed.
 *
 * So, once the backoff has passed, this asks `check` whether the cause is gone, with no request to any
 * host. For the egress proxy that is a new connection to it. A cause it cannot check without a fetch
 * (`check` answers undefined) still waits for a task. Cost: one timer tick a second, and one check per
 * backoff (1 s, doubling to 30 s) while the trouble lasts.
 */
import type { LocalCause } from "../core/model/index.ts";
import type { LocalTrouble } from "../engine/fetch/index.ts";

/** Whether our side works again for `cause` (true), still fails (false), or cannot be told without a fetch (undefined). */
export type LocalCheck = (cause: LocalCause) => Promise<boolean> | undefined;

const TICK_MS = 1_000;

export class TroubleProbe {
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking = false;

  constructor(
    private readonly trouble: LocalTrouble,
    private readonly check: LocalCheck,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look: a check when the node is in trouble, its backoff has passed and no probe is under way. */
  async tick(): Promise<void> {
    const cause = this.trouble.currentCause;
    if (this.checking || cause === undefined || this.trouble.allowance() === 0) return;
    let checked: Promise<boolean> | undefined;
    try {
      checked = this.check(cause);
    } catch {
      checked = Promise.resolve(false);
    }
    if (checked === undefined) return;
    this.checking = true;
    this.trouble.started();
    try {
      const works = await checked.catch(() => false);
      // A task's fetch may have settled the trouble meanwhile, either way.
      if (this.trouble.currentCause === undefined) return;
      if (works) this.trouble.succeeded();
      else this.trouble.stillFailing();
    } finally {
      this.checking = false;
    }
  }
}
