/**
 * What `crawl` says, in words, about the work it has not done: when it ends, what it leaves for the next
 * run (refetches, retries, URLs resting after failures, feeds waiting for their reread, URLs queued and sitemaps waiting behind hosts that
 * cannot be asked yet, each with when the first is due) and the hosts it could not reach (which, why, when
 * they are tried again); while it waits with nothing in flight, one line saying what it waits for. The numbers come from
 * the frontier's PendingWork (engine/frontier/pending.ts); this module only writes them for people. Times
 * are written in UTC with how far away they are.
 */
import type { PendingWork, UnreachableHost } from "../engine/frontier/index.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2026-01-05 10:00:00 UTC (in 59 min)`. */
export function when(at: number, now: number): string {
  const stamp = `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return `${stamp} (${relative(at - now)})`;
}

function relative(ms: number): string {
  if (ms <= 1_000) return "now";
  if (ms < MINUTE) return `in ${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / MINUTE);
  if (minutes < 60) return `in ${minutes} min`;
  if (ms < 2 * DAY) {
    const h = Math.floor(minutes / 60);
    const m = minutes - h * 60;
    return m > 0 ? `in ${h} h ${m} min` : `in ${h} h`;
  }
  return `in ${Math.round(ms / DAY)} days`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How a fetch failed, for a person: a fetch error kind, or `status N`, or a throttling note. */
export function failureWords(reason: string): string {
  switch (reason) {
    case "dns":
      return "its name does not resolve (DNS)";
    case "refused":
      return "the connection was refused";
    case "connect-timeout":
      return "no connection within the connect timeout";
    case "timeout":
      return "no complete answer within the response timeout";
    case "reset":
      return "the connection was reset";
    case "tls":
      return "the TLS handshake failed";
    case "bad-response":
      return "the answer was not valid HTTP";
    case "other":
      return "the fetch failed";
    case "unavailable":
      return "it was unavailable";
  }
  const status = /^status (\d+)$/.exec(reason);
  if (status) return `it answered ${status[1]}`;
  return reason;
}

/** One unreachable host: `a.test: robots.txt could not be read: ...; 5 URLs wait; tried again ...`. */
export function unreachableLine(h: UnreachableHost, now: number): string {
  const what = h.robotsTxt
    ? `robots.txt could not be read (${failureWords(h.reason)}), so nothing else is fetched from it`
    : `its pages failed (${failureWords(h.reason)})`;
  return `${h.host}: ${what}; ${plural(h.waiting, "URL")} ${h.waiting === 1 ? "waits" : "wait"}; tried again ${when(h.nextTryAt, now)}`;
}

/**
 * The end-of-crawl report on what is left, as lines (sub-items indented four spaces, so they never read as
 * the summary's counter lines); empty when nothing is left. `pagesFetched` is this run's page count: with
 * none and hosts unreachable, it says that every host was unreachable. With `continueCommand`, it ends with
 * the command that continues the crawl and when that is worth running.
 */
export function leftoverLines(p: PendingWork, now: number, opts: { pagesFetched: number; continueCommand?: string }): string[] {
  const lines: string[] = [];
  const items: string[] = [];
  if (p.refetches.count > 0)
    items.push(`${plural(p.refetches.count, "refetch", "refetches")}, the first due ${when(p.refetches.firstDueAt!, now)}`);
  if (p.retries.count > 0) items.push(`${plural(p.retries.count, "retry", "retries")}, the first due ${when(p.retries.firstDueAt!, now)}`);
  if (p.resting.count > 0)
    items.push(
      `${plural(p.resting.count, "URL")} resting after too many failures, the first tried again ${when(p.resting.firstDueAt!, now)}`,
    );
  if (p.feeds.count > 0 && p.feeds.firstDueAt !== undefined)
    items.push(
      `${plural(p.feeds.count, "feed")} waiting for ${p.feeds.count === 1 ? "its" : "their"} next read, the first due ${when(p.feeds.firstDueAt, now)}`,
    );
  if (p.queued.urls > 0) {
    const at = p.queued.firstReadyAt !== undefined ? `, the first host may be asked ${when(p.queued.firstReadyAt, now)}` : "";
    items.push(`${plural(p.queued.urls, "URL")} queued on ${plural(p.queued.hosts, "host")} that cannot be asked sooner${at}`);
  }
  if (p.sitemaps.count > 0) {
    const at = p.sitemaps.firstReadyAt !== undefined ? `, the first host may be asked ${when(p.sitemaps.firstReadyAt, now)}` : "";
    items.push(`${plural(p.sitemaps.count, "sitemap")} to read on ${plural(p.sitemaps.hosts, "host")} that cannot be asked sooner${at}`);
  }
  if (items.length > 0) {
    lines.push("left for the next run:");
    for (const item of items) lines.push(`    ${item}`);
  }
  if (p.unreachableTotal > 0) {
    lines.push(
      opts.pagesFetched === 0
        ? `every host of this crawl was unreachable, nothing was fetched (${plural(p.unreachableTotal, "host")}):`
        : `unreachable hosts (${p.unreachableTotal}):`,
    );
    for (const h of p.unreachable) lines.push(`    ${unreachableLine(h, now)}`);
    if (p.unreachableTotal > p.unreachable.length) lines.push(`    ... and ${p.unreachableTotal - p.unreachable.length} more`);
  }
  if (items.length > 0 && opts.continueCommand !== undefined) {
    const first = [
      p.refetches.firstDueAt,
      p.retries.firstDueAt,
      p.resting.firstDueAt,
      p.feeds.firstDueAt,
      p.queued.firstReadyAt,
      p.sitemaps.firstReadyAt,
    ]
      .filter((t): t is number => t !== undefined)
      .reduce((a, b) => Math.min(a, b));
    lines.push(`continue with   ${opts.continueCommand}`);
    lines.push(`    it picks up what is due by then (the first ${when(first, now)}); add --continuous to keep running until then`);
  }
  return lines;
}

/** When the first thing left falls due (a queued host, a sitemap's host, a retry, a refetch, a resting URL, a feed's reread); undefined: nothing is left. */
export function nextDueAt(p: PendingWork): number | undefined {
  const next = [
    p.queued.urls > 0 ? p.queued.firstReadyAt : undefined,
    p.sitemaps.count > 0 ? p.sitemaps.firstReadyAt : undefined,
    p.retries.firstDueAt,
    p.refetches.firstDueAt,
    p.resting.firstDueAt,
    p.feeds.firstDueAt,
  ]
    .filter((t): t is number => t !== undefined)
    .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
  return Number.isFinite(next) ? next : undefined;
}

/**
 * What a crawl with nothing in flight waits for, in one line, or undefined when it waits for nothing (it is
 * about to end or to fetch). Hosts it could not reach come first: they are what a person can act on.
 */
export function waitingLine(p: PendingWork, now: number): string | undefined {
  const next = nextDueAt(p);
  if (next === undefined) return undefined;
  const parts = [`nothing to fetch until ${when(next, now)}`];
  if (p.unreachableTotal > 0) {
    const hosts = p.unreachable
      .slice(0, 3)
      .map((h) => `${h.host} (${h.robotsTxt ? "robots.txt: " : ""}${failureWords(h.reason)}, tried again ${when(h.nextTryAt, now)})`);
    const more = p.unreachableTotal > 3 ? ` and ${p.unreachableTotal - 3} more` : "";
    parts.push(`unreachable: ${hosts.join(", ")}${more}`);
  }
  if (p.refetches.count > 0) parts.push(`${plural(p.refetches.count, "refetch", "refetches")} scheduled`);
  if (p.retries.count > 0) parts.push(`${plural(p.retries.count, "retry", "retries")} scheduled`);
  if (p.sitemaps.count > 0) parts.push(`${plural(p.sitemaps.count, "sitemap")} to read`);
  if (p.feeds.count > 0) parts.push(`${plural(p.feeds.count, "feed")} to read again`);
  return `waiting: ${parts.join("; ")}`;
}
