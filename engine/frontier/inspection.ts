/**
 * Host and URL inspection: what `host show`, `host list` and `url explain` learn from a frontier. It reads
 * and never changes anything: a host's politeness state, queue length, robots.txt verdict and today's page
 * count, whether it is active (in memory) or only in the store; and for a URL its stored state, schedule,
 * the robots.txt rule that decides it, any trap limit it breaks, the address rule that refuses its host,
 * the scope or filter rule that leaves it out, and, for a sitemap, its state. The Frontier's reports (reports.ts) hand
 * it a read-only view of the frontier's state (`InspectedFrontier`) and delegate the inspection methods here.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import { describeRefusal, type AddressPolicy } from "../../core/net/index.ts";
import type { ScopeFilter } from "../../core/scope/index.ts";
import type { HostState } from "../../core/politeness/index.ts";
import { checkTrap, countToday, urlPathAndQuery } from "../../core/traps/index.ts";
import type { HostEntry } from "./host-entry.ts";
import type { FrontierStore } from "./store/frontier-store.ts";

/** A host as the inspection APIs show it. */
export interface HostView {
  host: string;
  partition: number;
  queued: number;
  inFlight: boolean;
  state: HostState;
  robotsVerdict: string;
  robotsExpiresAt: number;
  pagesToday: number;
  minGapOverrideMs: number;
}

/** A URL as `explain` shows it. */
export interface UrlView {
  known: boolean;
  state: string;
  lastStatus: number;
  lastFetchedAt: number;
  failures: number;
  note: string;
  nextFetchAt: number;
  robots: "allowed" | "disallowed" | "unknown";
  robotsRule: string;
  trap: string;
  /** Why the address policy refuses the URL's host (`loopback: ...`), "" when it does not. */
  addressRefusal: string;
  /** The scope or filter rule that leaves the URL out (`scope: host x is not ...`), "" when none does. */
  scopeRejection: string;
  /** For a sitemap the crawl knows: pending, read, failed or disallowed; "" for any other URL. */
  sitemap: string;
  /** First found only in a rendered page's DOM (`--render`), not in any HTML as received. */
  foundByRender: boolean;
  /** The cap per server address the URL's requests are under (the policy's; the server itself is the fetcher's to know). */
  maxPerAddress: number;
  addressGapMs: number;
}

/** What inspection reads of a frontier. */
export interface InspectedFrontier {
  readonly store: FrontierStore;
  readonly policy: PolicyConfig;
  readonly partitions: number;
  /** A host's partition: its politeness key's (FrontierState.partitionOf). */
  partitionOf(host: string): number;
  now(): number;
  /** The in-memory entry of an active host. */
  active(host: string): HostEntry | undefined;
  activeHosts(): Iterable<HostEntry>;
  /** The hosts with work kept cold in the store (not in memory): how many, their URLs, the first due time. */
  coldHosts(): { hosts: number; queued: number; firstDueAt?: number };
  /** A host's entry built from the store, without making it active. */
  load(host: string): HostEntry;
  /** The host's robots.txt as stored, compiled (cached in the entry). */
  robotsOf(entry: HostEntry): HostEntry["robots"];
  /** The address policy admission applies. */
  readonly addresses: AddressPolicy;
  /** The scope and filters admission applies. */
  readonly scope: ScopeFilter;
}

/** What the frontier knows about a host, whether active or not; undefined when it never saw it. */
export function hostView(f: InspectedFrontier, host: string): HostView | undefined {
  const active = f.active(host);
  const entry = active ?? f.load(host);
  const stored = active ? undefined : f.store.loadHost(host);
  const robots = f.robotsOf(entry);
  const queued = active ? active.queued : f.store.queuedForHost(entry.partition, host);
  if (!active && !stored && !robots && queued === 0) return undefined;
  return {
    host,
    partition: entry.partition,
    queued,
    inFlight: entry.inFlight !== undefined,
    state: entry.state,
    robotsVerdict: robots?.stored.verdict ?? "unknown",
    robotsExpiresAt: robots?.stored.expiresAt ?? 0,
    pagesToday: countToday(entry.pagesToday, f.now()),
    minGapOverrideMs: entry.minGapOverrideMs,
  };
}

/** Active hosts, most queued first. */
export function listHosts(f: InspectedFrontier, limit: number): HostView[] {
  return [...f.activeHosts()]
    .sort((a, b) => b.queued - a.queued || a.key.localeCompare(b.key))
    .slice(0, limit)
    .map((e) => hostView(f, e.key))
    .filter((view): view is HostView => view !== undefined);
}

/** Why a normalized URL is where it is: stored state, robots verdict, trap limits. */
export function explainUrl(f: InspectedFrontier, url: string, host: string): UrlView {
  const partition = f.partitionOf(host);
  const row = f.store.getUrl(partition, url);
  const queued = row === undefined && f.store.isQueued(partition, host, url);
  const robots = f.robotsOf(f.active(host) ?? f.load(host));
  const decision = robots?.policy?.explain(urlPathAndQuery(url));
  const trap = checkTrap(url, { hostQueued: 0, hostPagesToday: 0 }, f.policy);
  const refusal = f.addresses.checkHost(host);
  const sitemap = f.store.sitemaps.byUrl(partition, url);
  // The depth rule is judged only for a URL whose depth the store knows; a sitemap faces no scope rule.
  const outside = sitemap ? undefined : f.scope.explain({ url, host, depth: row?.depth ?? 0 });
  return {
    known: row !== undefined || queued,
    state: row?.state ?? (queued ? "queued" : "unknown"),
    lastStatus: row?.lastStatus ?? 0,
    lastFetchedAt: row?.lastFetchedAt ?? 0,
    failures: row?.failures ?? 0,
    note: row?.note ?? "",
    nextFetchAt: f.store.scheduledAt(partition, url) ?? 0,
    robots: !robots
      ? "unknown"
      : robots.stored.verdict === "allow-all"
        ? "allowed"
        : robots.stored.verdict === "disallow-all"
          ? "disallowed"
          : decision?.allowed === false
            ? "disallowed"
            : "allowed",
    robotsRule: decision?.rule
      ? `${decision.rule.allow ? "Allow" : "Disallow"}: ${decision.rule.pattern}`
      : robots && robots.stored.verdict !== "parse"
        ? `robots.txt ${robots.stored.verdict}`
        : "",
    trap: trap.ok ? "" : `${trap.reason}: ${trap.detail}`,
    addressRefusal: refusal ? `${refusal.reason}: ${describeRefusal(refusal)}` : "",
    scopeRejection: outside ? `${outside.reason}: ${outside.detail}` : "",
    sitemap: sitemap?.state ?? "",
    foundByRender: f.store.foundByRender(partition, url),
    maxPerAddress: f.policy.maxPerAddress,
    addressGapMs: f.policy.addressGapMs,
  };
}
