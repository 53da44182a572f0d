/**
 * What a person watching `crawl` sees: on a terminal, one progress line rewritten in place (a
 * TerminalStatus); otherwise a `progress` log line every interval (for journald, CI logs, files), in the
 * process's log format. While nothing is in flight and nothing was fetched since the last line, it says
 * instead, in words, what the crawl waits for (leftover.ts: the next thing due, the hosts it could not
 * reach), and in a log only when that changes, not every interval. The final summary is printed by
 * `summary`. Rates are measured over each interval, not since the start, so they show the present.
 */
import type { Log } from "../core/ports/index.ts";
import type { FrontierSnapshot, PendingWork } from "../engine/frontier/index.ts";
import { leftoverLines, nextDueAt, waitingLine } from "./leftover.ts";
import type { TerminalStatus } from "./terminal-status.ts";

export interface ProgressSource {
  pages(): number;
  frontier(): FrontierSnapshot;
  inFlight(): number;
  /** What is left and when (read only while nothing is in flight). */
  pending(): PendingWork;
}

/** How long an idle crawl's reading of what is left is reused (unless a page was fetched or something fell due). */
const PENDING_MAX_AGE_MS = 30_000;

export class Progress {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastPages = 0;
  private lastAt: number;
  /** The last waiting line logged, without its "(in ...)" parts, so a line is logged once per change. */
  private lastWaiting: string | undefined;
  /**
   * What is left, read at most every PENDING_MAX_AGE_MS while idle: it reads the whole schedule, which on a
   * large crawl takes a while, and an idle crawl's schedule does not change. Read again sooner when a page
   * was fetched or when the first thing it waited for fell due (a retry that failed fetches no page).
   */
  private pendingRead: { at: number; pages: number; work: PendingWork; nextDueAt: number | undefined } | undefined;
  private readonly startedAt: number;

  /** `status` is the terminal's status line, or undefined when nobody watches (then `log` gets the lines). */
  constructor(
    private readonly source: ProgressSource,
    private readonly status: TerminalStatus | undefined,
    private readonly log: Log,
    private readonly now: () => number,
    private readonly intervalMs = status ? 500 : 10_000,
  ) {
    this.startedAt = now();
    this.lastAt = this.startedAt;
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.status?.clear();
  }

  private tick(): void {
    const now = this.now();
    const pages = this.source.pages();
    const rate = ((pages - this.lastPages) * 1000) / Math.max(1, now - this.lastAt);
    const idle = pages === this.lastPages && this.source.inFlight() === 0;
    this.lastPages = pages;
    this.lastAt = now;
    if (idle && this.showWaiting(now)) return;
    this.lastWaiting = undefined;
    const f = this.source.frontier();
    const errors = errorsByKind(f.counters);
    if (this.status) {
      const errText = Object.entries(errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      this.status.draw(
        `${rate.toFixed(0)} pages/s | fetched ${pages} | queued ${f.queued} | hosts ready ${f.hostsReady} waiting ${f.hostsWaiting} | in flight ${this.source.inFlight()}${errText ? ` | errors: ${errText}` : ""}`,
      );
    } else {
      this.log.info("progress", {
        pagesPerSecond: Number(rate.toFixed(1)),
        fetched: pages,
        queued: f.queued,
        hostsReady: f.hostsReady,
        hostsWaiting: f.hostsWaiting,
        inFlight: this.source.inFlight(),
        errors,
      });
    }
  }

  /** Shows what an idle crawl waits for; false when it waits for nothing (the usual line is shown then). */
  private showWaiting(now: number): boolean {
    const pages = this.source.pages();
    const cached = this.pendingRead;
    const fresh =
      cached !== undefined &&
      cached.pages === pages &&
      now - cached.at < PENDING_MAX_AGE_MS &&
      (cached.nextDueAt === undefined || now < cached.nextDueAt);
    const pending = fresh ? cached.work : this.source.pending();
    if (!fresh) this.pendingRead = { at: now, pages, work: pending, nextDueAt: nextDueAt(pending) };
    const line = waitingLine(pending, now);
    if (line === undefined) return false;
    if (this.status) {
      this.status.draw(line);
      return true;
    }
    const key = line.replace(/ \((in [^)]*|now)\)/g, "");
    if (key !== this.lastWaiting) {
      this.lastWaiting = key;
      this.log.info(line, {
        waiting: true,
        queued: pending.queued.urls,
        sitemaps: pending.sitemaps.count,
        feeds: pending.feeds.count,
        refetches: pending.refetches.count,
        retries: pending.retries.count,
        unreachableHosts: pending.unreachable.map((h) => ({
          host: h.host,
          robotsTxt: h.robotsTxt,
          reason: h.reason,
          nextTryAt: new Date(h.nextTryAt).toISOString(),
        })),
      });
    }
    return true;
  }

  elapsedMs(): number {
    return this.now() - this.startedAt;
  }
}

/** Network errors and error statuses grouped by kind: `timeout`, `dns`, `5xx`, `4xx`... */
function errorsByKind(counters: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    let kind: string | undefined;
    const status = /^fetch\.status\.(\d)\d\d$/.exec(name);
    if (status && (status[1] === "4" || status[1] === "5")) kind = `${status[1]}xx`;
    const net = /^fetch\.(network-error|skipped)\.(.+)$/.exec(name);
    if (net) kind = net[2];
    if (kind) out[kind] = (out[kind] ?? 0) + value;
  }
  return out;
}

export function summary(opts: {
  reason: string;
  pages: number;
  elapsedMs: number;
  frontier: FrontierSnapshot;
  out: string;
  resumeCommand: string;
  /** What is left (the end-of-crawl report); absent: only the resume line when the crawl did not finish. */
  pending?: PendingWork;
  now?: number;
}): string {
  const { frontier: f } = opts;
  const seconds = opts.elapsedMs / 1000;
  const lines = [
    `crawl stopped: ${opts.reason}`,
    `  pages fetched   ${opts.pages} in ${seconds.toFixed(1)} s (${(opts.pages / Math.max(seconds, 0.001)).toFixed(1)} pages/s)`,
    `  queued          ${f.queued} URLs, ${f.scheduled} scheduled for retry or refetch, ${f.knownUrls} known`,
  ];
  const groups: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(f.counters)) {
    const dot = name.indexOf(".");
    const group = dot > 0 ? name.slice(0, dot) : name;
    (groups[group] ??= []).push(`${dot > 0 ? name.slice(dot + 1) : name} ${value}`);
  }
  for (const [group, items] of Object.entries(groups)) lines.push(`  ${group.padEnd(15)} ${items.join(", ")}`);
  lines.push(`  output          ${opts.out}`);
  // A crawl that ended by itself says what it leaves and how to continue; one stopped early how to resume.
  const ended = opts.reason === "done" || opts.reason === "nothing-due";
  if (!ended) lines.push(`  resume with     ${opts.resumeCommand}`);
  if (opts.pending) {
    const now = opts.now ?? Date.now();
    for (const item of leftoverLines(opts.pending, now, {
      pagesFetched: opts.pages,
      continueCommand: ended ? opts.resumeCommand : undefined,
    }))
      lines.push(item);
  }
  return `${lines.join("\n")}\n`;
}
