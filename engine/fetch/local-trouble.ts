/**
 * When our own side fails (the egress proxy refuses, no local port or file descriptor is left, the kernel
 * has no buffers, the resolver is down), every fetch would fail alike, and booking that against each host
 * would park thousands of healthy hosts for an hour. So a local failure gives its task back untouched, and
 * the process slows down as a whole: no new fetch starts until a backoff has passed (1 s, doubling while
 * the trouble lasts, at most 30 s), then one probe goes out; the first fetch that gets through ends the
 * trouble. One warning per episode names the cause and the setting to change; the end is logged too.
 * Shared by `crawl`'s loop and the fetch nodes, which differ only in how a task is given back.
 */
import type { LocalCause } from "../../core/model/index.ts";
import type { Log } from "../../core/ports/index.ts";
import type { Counters } from "../../core/stats/index.ts";

const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** A new episode of the same cause this soon after the last one ended is not warned of again. */
const QUIET_AFTER_MS = 60_000;

const ADVICE: Readonly<Record<LocalCause, string>> = {
  "proxy-unreachable": "the egress proxy refused the connection or could not be reached: check that it runs and that --proxy names it",
  "proxy-auth": "the egress proxy asks for credentials (407): put them in --proxy's URL (http://user:password@host:port)",
  "local-ports":
    "no local port was free for a new connection (EADDRNOTAVAIL): lower the fetches in flight (--max-in-flight, a fetch node's --concurrency) or widen net.ipv4.ip_local_port_range",
  "file-table":
    "the open-file limit was reached (EMFILE/ENFILE): raise it (ulimit -n, systemd LimitNOFILE=) or lower the fetches in flight (--max-in-flight, --concurrency)",
  "kernel-buffers": "the kernel had no buffers for a socket (ENOBUFS/ENOMEM): lower the fetches in flight (--max-in-flight, --concurrency)",
  resolver: "the local resolver failed every name alike (EAI_AGAIN): check that it runs and /etc/resolv.conf",
  // Never an episode (crawl-loop.ts and the fetch node give such a task back before asking LocalTrouble).
  "address-busy": "a server address stayed at its cap (--max-per-address, --address-gap) for the whole wait",
};

export interface LocalTroubleOptions {
  readonly log: Log;
  readonly now: () => number;
  /** `fetch.local.<cause>` per failure, `fetch.local.episodes` per episode. */
  readonly counters?: Counters;
  /** Default 1 s. */
  readonly minBackoffMs?: number;
  /** Default 30 s. */
  readonly maxBackoffMs?: number;
}

export class LocalTrouble {
  private cause: LocalCause | undefined;
  private since = 0;
  private until = 0;
  private backoffMs: number;
  private probing = false;
  private probeAt = 0;
  private givenBack = 0;
  private lastEnded: { cause: LocalCause; at: number } | undefined;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly opts: LocalTroubleOptions) {
    this.minBackoffMs = opts.minBackoffMs ?? MIN_BACKOFF_MS;
    this.maxBackoffMs = opts.maxBackoffMs ?? MAX_BACKOFF_MS;
    this.backoffMs = this.minBackoffMs;
  }

  /** True while a local failure has not been followed by a fetch that got through. */
  get troubled(): boolean {
    return this.cause !== undefined;
  }

  /** What fails now (undefined: nothing). */
  get currentCause(): LocalCause | undefined {
    return this.cause;
  }

  /** When the next probe may start, while troubled. */
  get resumeAt(): number | undefined {
    return this.cause === undefined ? undefined : this.until;
  }

  /**
   * How many new fetches may start now: any number when all is well; none while backing off; one probe
   * once the backoff has passed (and none more until it has ended, one way or the other).
   */
  allowance(): number {
    if (this.cause === undefined) return Number.POSITIVE_INFINITY;
    const now = this.opts.now();
    // A probe that ended neither way (given back on a stop, say) does not hold fetching up for ever.
    if (this.probing && now - this.probeAt < this.maxBackoffMs) return 0;
    return now < this.until ? 0 : 1;
  }

  /** A fetch may start as the probe (call only when allowance() allowed it). */
  started(): void {
    if (this.cause !== undefined && this.opts.now() >= this.until) {
      this.probing = true;
      this.probeAt = this.opts.now();
    }
  }

  /** A fetch failed on our side; its task is being given back. */
  failed(cause: LocalCause, message: string): void {
    const now = this.opts.now();
    this.opts.counters?.add(`fetch.local.${cause}`);
    this.givenBack++;
    if (this.cause === undefined) {
      this.cause = cause;
      this.since = now;
      this.backoffMs = this.minBackoffMs;
      this.until = now + this.backoffMs;
      this.probing = false;
      this.opts.counters?.add("fetch.local.episodes");
      const quiet = this.lastEnded?.cause === cause && now - this.lastEnded.at < QUIET_AFTER_MS;
      if (!quiet) {
        this.opts.log.warn(
          `fetching paused: ${ADVICE[cause]} (${message}). No host is blamed: each task goes back to its queue, and fetching resumes by itself once a probe gets through`,
          { localCause: cause, error: message },
        );
      }
      return;
    }
    if (this.probing || now >= this.until) {
      // The probe (or a fetch that started after the backoff) failed too: wait longer.
      this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
      this.until = now + this.backoffMs;
      this.probing = false;
      this.cause = cause;
    }
  }

  /**
   * A probe made without a task (a fetch node that gets no task while in trouble checks its side by itself:
   * fetch-node/trouble-probe.ts) found it still failing: wait longer, as after a failed fetch, with no task
   * counted as given back.
   */
  stillFailing(): void {
    if (this.cause === undefined) return;
    const now = this.opts.now();
    this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
    this.until = now + this.backoffMs;
    this.probing = false;
  }

  /** A fetch got an answer (or failed on the host's side): our side works. */
  succeeded(): void {
    if (this.cause === undefined) return;
    const now = this.opts.now();
    this.opts.log.info(`fetching again: the local trouble (${this.cause}) is over after ${((now - this.since) / 1000).toFixed(1)} s`, {
      localCause: this.cause,
      pausedMs: Math.round(now - this.since),
      tasksGivenBack: this.givenBack,
    });
    this.lastEnded = { cause: this.cause, at: now };
    this.cause = undefined;
    this.probing = false;
    this.givenBack = 0;
  }
}
