/**
 * A fetch node in local trouble checks its own side by itself, without a task, and stands aside meanwhile.
 *
 * LocalTrouble ends an episode when a fetch gets through, and its probe is the next task the node tries.
 * With host affinity a node in trouble gets no task: its `localTrouble` gauge makes every frontier node
 * send its hosts to the others, and its heir pulls its inbox (fetch-node/inbox-heirs.ts). So it never
 * tried a probe and stayed out of the crawl for good. Seen: the fetch node cut from the web for 20 s
 * fetched nothing after the cut had healed.
 *
 * So, once the backoff has passed, this asks `check` whether the cause is gone, with no request to any
 * host. For the egress proxy that is a new connection to it. A cause it does not cover still waits for a
 * task's fetch.
 *
 * While a covered cause lasts, the node also stops pulling its own inbox (`onStandAside`). Otherwise it
 * kept taking its hosts' waiting tasks and handing them back untried, and the heir, pulling the same
 * inbox, seldom got one: the cut node's hosts waited out the whole cut (up to 25.2 s of the 26 s allowed),
 * where the heir could fetch them a few seconds in. The node pulls its inbox again once its side works.
 *
 * Cost: one timer tick a second, and one check per backoff (1 s, doubling to 30 s) while the trouble lasts.
 */
import type { LocalCause } from "../core/model/index.ts";
import type { LocalTrouble } from "../engine/fetch/index.ts";

/** How a node checks its own side without a task, for the causes it covers. */
export interface LocalCheck {
  covers(cause: LocalCause): boolean;
  /** Whether our side works again for `cause` (true) or still fails (false). */
  check(cause: LocalCause): Promise<boolean>;
}

const TICK_MS = 1_000;

export class TroubleProbe {
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking = false;
  private aside = false;

  constructor(
    private readonly trouble: LocalTrouble,
    private readonly local: LocalCheck,
    /** The node should stop pulling its own inbox (true) or pull it again (false). */
    private readonly onStandAside: (aside: boolean) => void = () => {},
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stands aside while a covered cause lasts, and back in once it is over (called by the tick, and by the node after a local failure). */
  update(): void {
    const cause = this.trouble.currentCause;
    const aside = cause !== undefined && this.local.covers(cause);
    if (aside === this.aside) return;
    this.aside = aside;
    this.onStandAside(aside);
  }

  /** One look: a check when the node is in trouble, its backoff has passed and no probe is under way. */
  async tick(): Promise<void> {
    this.update();
    const cause = this.trouble.currentCause;
    if (this.checking || cause === undefined || !this.local.covers(cause) || this.trouble.allowance() === 0) return;
    this.checking = true;
    this.trouble.started();
    try {
      const works = await this.local.check(cause).catch(() => false);
      // A task's fetch may have settled the trouble meanwhile, either way.
      if (this.trouble.currentCause === undefined) return;
      if (works) this.trouble.succeeded();
      else this.trouble.stillFailing();
    } finally {
      this.checking = false;
      this.update();
    }
  }
}
