/**
 * Notices a partition between this process and its egress proxy while requests hang in it, not after.
 *
 * A partition drops packets and tells nobody. A request sent on a connection the partition cut gets no
 * answer and no error, so it ends only at its response deadline (20 s). If the link has healed by then, the
 * proxy takes a new connection again, and the fetcher books the timeout against the host: its gap becomes
 * ten times the 20 s and its page is asked again. That happened to every host of a fetch node cut from the
 * web for 20 s whenever all its requests sat on kept-alive connections: no new connection was opened, so
 * no connect timeout told the node that the proxy was out of reach.
 *
 * So, while requests through the proxy are under way, this watch asks whether nothing has come back
 * through the proxy for `stallMs` (no response has begun and no request has ended). Then it probes the
 * proxy with a new connection (`probe`). Refused or unanswered: the proxy is out of reach now, during the
 * stall, and `onLost` ends every request under way as our own failure, before any deadline. A proxy that
 * takes the connection changes nothing: a slow host is still the host's, and the 10x rule still holds.
 *
 * Cost: one timer tick every `stallMs / 3` while requests are under way, and nothing more while answers come
 * back; at most one probe per `stallMs` while nothing does.
 */

export interface ProxyStallWatchOptions {
  /** How long nothing may come back through the proxy, with requests under way, before it is probed. */
  readonly stallMs: number;
  /** Whether the proxy takes a new connection now. */
  readonly probe: () => Promise<boolean>;
  /** The proxy was found out of reach during a stall. */
  readonly onLost: (stalledMs: number) => void;
  readonly now: () => number;
}

export class ProxyStallWatch {
  /** When each request under way started (a request is any object the fetcher keeps for it). */
  readonly #underWay = new Map<object, number>();
  /** When something last came back through the proxy (an answer began, or a request ended). */
  #lastSignOfLife: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #probing = false;
  #lastProbeAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(private readonly o: ProxyStallWatchOptions) {
    this.#lastSignOfLife = o.now();
  }

  /** A request through the proxy was sent. */
  started(request: object): void {
    if (this.#closed) return;
    this.#underWay.set(request, this.o.now());
    this.#timer ??= setInterval(() => void this.#check(), Math.max(10, Math.floor(this.o.stallMs / 3)));
    // The process may wait on nothing but this watch's timer (a cut node whose every request hangs).
    this.#timer.unref?.();
  }

  /** An answer began through the proxy: the link works. */
  answered(): void {
    this.#lastSignOfLife = this.o.now();
  }

  /** A request through the proxy ended, whichever way. Only an end that is a sign of life should say so. */
  ended(request: object, signOfLife: boolean): void {
    this.#underWay.delete(request);
    if (signOfLife) this.#lastSignOfLife = this.o.now();
    if (this.#underWay.size === 0) this.#stopTimer();
  }

  close(): void {
    this.#closed = true;
    this.#underWay.clear();
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** How long the requests under way have had nothing back: since the later of the oldest's start and the last sign of life. */
  #stalledMs(now: number): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const startedAt of this.#underWay.values()) if (startedAt < oldest) oldest = startedAt;
    if (oldest === Number.POSITIVE_INFINITY) return 0;
    return now - Math.max(oldest, this.#lastSignOfLife);
  }

  async #check(): Promise<void> {
    const now = this.o.now();
    if (this.#probing || this.#closed || now - this.#lastProbeAt < this.o.stallMs) return;
    const stalledMs = this.#stalledMs(now);
    if (stalledMs < this.o.stallMs) return;
    this.#probing = true;
    this.#lastProbeAt = now;
    try {
      const listens = await this.o.probe();
      // Something came back while the probe ran: the stall is over, whatever the probe found.
      if (!listens && !this.#closed && this.#stalledMs(this.o.now()) >= this.o.stallMs) this.o.onLost(this.#stalledMs(this.o.now()));
    } finally {
      this.#probing = false;
    }
  }
}
