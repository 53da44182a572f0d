/**
 * What a frontier still has to do, and when: refetches, retries and resting (dead) URLs on the schedule,
 * URLs queued and sitemaps waiting to be read behind hosts that cannot be fetched yet, feeds waiting for
 * their next read on their own schedule, and the hosts that could not be reached, with why
 * (the fetch error kind or the status that failed, and whether it was robots.txt) and when they are tried
 * again. `crawl` prints it when it ends ("what it leaves for the next run") and while it waits with nothing in
 * flight. Read-only, over the same view of the frontier as inspection.ts; it reads the schedule whole, so it
 * is for summaries, not for every loop turn.
 */
import type { InspectedFrontier } from "./inspection.ts";

/** How many URLs of one sort are waiting, and when the first is due. */
export interface Due {
  count: number;
  firstDueAt?: number;
}

/** A host that could not be reached: its robots.txt could not be read, or its URLs keep failing. */
export interface UnreachableHost {
  host: string;
  /** The robots.txt fetch failed (5xx or no answer): nothing else of the host may be fetched until it is read. */
  robotsTxt: boolean;
  /** How it failed: a fetch error kind (`dns`, `refused`, `connect-timeout`, `timeout`, `reset`, `tls`...) or `status 503`. */
  reason: string;
  /** URLs of the host waiting in its queue or as sitemaps to read (behind robots.txt), for a retry, or resting after failures. */
  waiting: number;
  /** When the host is tried again. */
  nextTryAt: number;
}

export interface PendingWork {
  /** Pages (and media) fetched, due again after their refetch interval. */
  refetches: Due;
  /** URLs whose last fetch failed, due for their next try. */
  retries: Due;
  /** URLs that failed too often, resting until they are tried once more. */
  resting: Due;
  /** URLs in host queues, and when the first of their hosts may be asked (gap, robots.txt, daily cap). */
  queued: { urls: number; hosts: number; firstReadyAt?: number };
  /** Sitemaps waiting to be read (the /sitemap.xml probes among them), on how many hosts, and when the first of those hosts may be asked. */
  sitemaps: { count: number; hosts: number; firstReadyAt?: number };
  /** Feeds read and waiting for their reread on their own schedule, and when the first is due (the store's due index). */
  feeds: Due;
  /** The hosts that could not be reached, most URLs waiting first, at most the limit asked for. */
  unreachable: UnreachableHost[];
  /** How many hosts could not be reached in all. */
  unreachableTotal: number;
}

export function pendingWork(f: InspectedFrontier, limit: number): PendingWork {
  const now = f.now();
  const work: PendingWork = {
    refetches: { count: 0 },
    retries: { count: 0 },
    resting: { count: 0 },
    queued: { urls: 0, hosts: 0 },
    sitemaps: { count: 0, hosts: 0 },
    feeds: { count: 0 },
    unreachable: [],
    unreachableTotal: 0,
  };
  for (const s of f.store.scheduledByState()) {
    const due = s.state === "retry-wait" ? work.retries : s.state === "dead" ? work.resting : work.refetches;
    due.count += s.count;
    due.firstDueAt = due.firstDueAt === undefined ? s.firstDueAt : Math.min(due.firstDueAt, s.firstDueAt);
  }

  // Two reads over the feed rows' due index (sitemaps_feed_due), not a scan of every sitemap.
  const feedsWaiting = f.store.sitemaps.feedCounts().waiting;
  if (feedsWaiting > 0) work.feeds = { count: feedsWaiting, firstDueAt: f.store.sitemaps.nextFeedDueAt() };

  const unreachable = new Map<string, UnreachableHost>();
  for (const entry of f.activeHosts()) {
    if (entry.queued <= 0 && entry.sitemaps <= 0) continue;
    // A host never asked (or free since) may be asked now, not at its zero time.
    let readyAt = entry.inFlight ? now : Math.max(now, entry.state.nextAllowedAt);
    const robots = f.robotsOf(entry);
    if (robots?.stored.verdict === "disallow-all" && robots.stored.expiresAt > now) {
      // robots.txt was unavailable (5xx or no answer): the host is parked until it is read again.
      readyAt = Math.max(readyAt, robots.stored.expiresAt);
      const state = entry.state;
      unreachable.set(entry.key, {
        host: entry.key,
        robotsTxt: true,
        reason: state.lastError ?? (state.lastStatus ? `status ${state.lastStatus}` : "unavailable"),
        waiting: entry.queued + Math.max(0, entry.sitemaps),
        nextTryAt: robots.stored.expiresAt,
      });
    }
    if (entry.queued > 0) {
      work.queued.urls += entry.queued;
      work.queued.hosts++;
      work.queued.firstReadyAt = earliest(work.queued.firstReadyAt, readyAt);
    }
    if (entry.sitemaps > 0) {
      work.sitemaps.count += entry.sitemaps;
      work.sitemaps.hosts++;
      work.sitemaps.firstReadyAt = earliest(work.sitemaps.firstReadyAt, readyAt);
    }
  }
  // Hosts kept cold in the store wait for their time like the others (their URLs may include sitemaps' hosts).
  const cold = f.coldHosts();
  if (cold.hosts > 0) {
    work.queued.urls += cold.queued;
    work.queued.hosts += cold.hosts;
    work.queued.firstReadyAt = earliest(work.queued.firstReadyAt, Math.max(now, cold.firstDueAt ?? now));
  }
  // Hosts whose robots.txt was read but whose pages fail: their URLs wait for a retry, or rest.
  for (const r of f.store.failingByHost(limit)) {
    const known = unreachable.get(r.host);
    if (known) {
      known.waiting += r.count;
      continue;
    }
    unreachable.set(r.host, { host: r.host, robotsTxt: false, reason: r.note ?? "failed", waiting: r.count, nextTryAt: r.firstDueAt });
  }
  const all = [...unreachable.values()].sort((a, b) => b.waiting - a.waiting || a.host.localeCompare(b.host));
  work.unreachableTotal = all.length;
  work.unreachable = all.slice(0, limit);
  return work;
}

function earliest(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}
