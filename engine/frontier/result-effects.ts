/**
 * One fetch result's effect on its host and its URL, inside the batch's transaction (results.ts): the
 * counters and histograms of the fetch, the host's politeness state (core/politeness `onFetchEnd`: the gap
 * after the end of the fetch, Retry-After, backoff; robots.txt's crawl-delay; the operator's minimum gap), a
 * robots.txt stored and compiled (a 5xx or no answer: "disallow-all", nothing is fetched until it is read
 * again), a sitemap marked read or failed, a page or media file's outcome (url-outcome.ts: stored state,
 * retry or refetch schedule, redirect target admitted) and the links it found admitted.
 *
 * It records `fetch.duration-seconds` (each result's endedAt - startedAt, request to body complete,
 * robots.txt included, skipped tasks, never sent, not) and `fetch.page-bytes` (each stored page body after
 * decompression; duplicates, not stored, not).
 */
import type { DiscoveredUrl, FetchResult, RenderReport } from "../../core/model/index.ts";
import { NO_RENDER_MEMORY, rememberRender } from "../../core/render/index.ts";
import { noteKind } from "../../core/model/index.ts";
import { onFetchEnd } from "../../core/politeness/index.ts";
import { robotsExpiresAt } from "../../core/robots/index.ts";
import { bumpDaily } from "../../core/traps/index.ts";
import { isHomePage } from "../../core/url/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { Admission } from "./admission.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostEntry } from "./host-entry.ts";
import { feedNotModified, nextFeedSchedule } from "./feed-schedule.ts";
import type { HostSitemaps } from "./host-sitemaps.ts";
import { countSitemapResult, probeFoundNone } from "./sitemap-refs.ts";
import { captureOf, withCapture } from "../../core/captures/index.ts";
import type { QueuedUrl, UrlRow } from "./store/frontier-store.ts";
import { decideUrlOutcome, unfetchedRow } from "./url-outcome.ts";

/** A page result a job counts as an error: no answer, or a 4xx or 5xx one. */
function isErrorResult(result: FetchResult): boolean {
  return result.kind === "network-error" || (result.kind === "response" && result.status >= 400);
}

/** Weight of the newest fetch in a host's moving-average fetch duration. */
const FETCH_MS_WEIGHT = 0.3;

/** A result ready to apply: its host entry and the task it answers, with its links screened. */
export interface PreparedResult {
  result: FetchResult;
  entry: HostEntry;
  flight: NonNullable<HostEntry["inFlight"]>;
  candidates: DiscoveredUrl[];
  redirect: DiscoveredUrl[];
  /**
   * Confirm every "maybe seen" of its links in the store: the result came a second time (redelivered), or
   * its links were found before by a fetch whose result was never committed (a full disk).
   */
  confirmSeen: boolean;
  /** Sitemaps its links or its robots.txt named, for hosts this frontier keeps. */
  sitemaps: DiscoveredUrl[];
  /** The result of a task this frontier did not hand out, adopted (results.ts): its host was not in flight. */
  adopted?: boolean;
}

export class ResultEffects {
  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly sitemaps: HostSitemaps,
    private readonly admission: Admission,
  ) {}

  /** Applies one result; `maybe` is the seen-set's answer for its candidates, then its redirect target. */
  apply(p: PreparedResult, maybe: readonly boolean[], now: number): void {
    const { result, entry, flight } = p;
    const policy = this.s.policy;
    // A probed /sitemap.xml that is absent is what most hosts answer: counted as such, not as a 404 (sitemap-refs.ts).
    const probe = flight.task.kind === "sitemap" && flight.sitemap !== undefined && this.sitemaps.isProbe(entry, flight.sitemap);
    this.count(result, probe && probeFoundNone(result));
    if (result.kind !== "skipped") {
      const ms = Math.max(0, result.endedAt - result.startedAt - (result.pausedMs ?? 0));
      this.s.histograms.observe("fetch.duration-seconds", ms / 1000);
      entry.fetchMs = entry.fetchMs === undefined ? ms : entry.fetchMs + FETCH_MS_WEIGHT * (ms - entry.fetchMs);
    }
    if (!p.adopted) {
      entry.inFlight = undefined;
      this.s.inFlightCount--;
    }
    const robotsDelay = flight.task.kind === "robots" ? this.robots(entry, result) : undefined;
    if (result.render) this.rendered(entry, result.render);
    entry.state = onFetchEnd(
      entry.state,
      {
        startedAt: result.startedAt,
        endedAt: Math.max(result.endedAt, result.startedAt),
        pausedMs: result.pausedMs,
        status: result.kind === "response" ? result.status : undefined,
        error: result.kind === "network-error" ? result.error : undefined,
        retryAfter: result.retryAfter,
        crawlDelayMs: robotsDelay,
      },
      policy,
    );
    if (result.render?.hostThrottled) {
      // A request of the render was answered 429/503: the host is backed off as for a throttled page.
      entry.state = onFetchEnd(entry.state, { startedAt: result.endedAt, endedAt: result.endedAt, status: 429 }, policy);
    }
    if (entry.minGapOverrideMs > 0) {
      const at = Math.max(result.endedAt, result.startedAt) + entry.minGapOverrideMs + policy.gapMarginMs;
      entry.state = { ...entry.state, nextAllowedAt: Math.max(entry.state.nextAllowedAt, at) };
    }
    if (result.kind === "skipped") entry.state = { ...entry.state, nextAllowedAt: Math.min(entry.state.nextAllowedAt, now) };
    this.s.keyGate.ended(entry, Math.max(result.endedAt, result.startedAt));
    if (flight.task.kind === "sitemap" && flight.sitemap) {
      // A feed is read again on its own schedule: sooner when it listed a URL the seen-set had never seen.
      const feed = flight.sitemap.feed;
      const schedule = feed ? nextFeedSchedule(feed, result, maybe.slice(0, p.candidates.length).includes(false), policy) : undefined;
      this.s.store.sitemaps.finish(flight.sitemap, result.kind === "response" ? "read" : "failed", now, schedule);
      this.sitemaps.finished(entry);
      if (feed && feedNotModified(result)) this.s.counters.add("feed.not-modified");
      else countSitemapResult(this.s.counters, result, probe);
    }
    // A page or a media file: both are queued URLs with a state and a schedule. `start` read the URL's state
    // when it handed the task out; none read means a first fetch.
    if ((flight.task.kind === "page" || flight.task.kind === "media") && flight.item) {
      // The job's page results, counted in the transaction that applies this one: once (job-count-table.ts).
      this.s.store.jobCounts.add(entry.partition, flight.item.job ?? 0, 1, isErrorResult(result) ? 1 : 0);
      this.page(
        entry,
        flight.item,
        result,
        now,
        p.redirect,
        maybe.slice(p.candidates.length),
        flight.prev ?? unfetchedRow(flight.item),
        p.confirmSeen,
      );
    }
    this.admission.enqueueNew(p.candidates, maybe.slice(0, p.candidates.length), p.confirmSeen);
    this.hosts.save(entry);
  }

  /** Counts what rendering did, and remembers for the host whether it found links the HTML did not have. */
  private rendered(entry: HostEntry, report: RenderReport): void {
    const counters = this.s.counters;
    counters.add(`render.${report.outcome}${report.outcome === "failed" && report.reason ? `.${report.reason}` : ""}`);
    if (report.extraLinks > 0) counters.add("render.links-found", report.extraLinks);
    if (report.hostRequests > 0) counters.add("render.host-requests", report.hostRequests);
    if (report.browserRestarts) counters.add("render.browser-restarts", report.browserRestarts);
    if (report.outcome === "rendered") entry.renderMemory = rememberRender(entry.renderMemory ?? NO_RENDER_MEMORY, report.extraLinks);
  }

  /** Stores and compiles a robots.txt result; returns its crawl-delay (0 when it has none). */
  private robots(entry: HostEntry, result: FetchResult): number {
    const verdict = result.robots?.verdict ?? (result.kind === "network-error" ? "disallow-all" : "allow-all");
    const fetchedAt = result.endedAt;
    const stored = {
      verdict,
      body: verdict === "parse" ? (result.robots?.text ?? "") : undefined,
      fetchedAt,
      expiresAt: robotsExpiresAt(fetchedAt, verdict, this.s.policy.robotsMaxAgeMs),
    };
    this.s.store.saveRobots(entry.key, entry.partition, stored);
    const robots = this.hosts.setRobots(entry, stored);
    this.s.counters.add(`robots.verdict.${verdict}`);
    return robots.policy?.crawlDelayMs ?? 0;
  }

  private page(
    entry: HostEntry,
    item: QueuedUrl,
    result: FetchResult,
    now: number,
    redirect: DiscoveredUrl[],
    redirectMaybe: boolean[],
    prev: UrlRow,
    confirmSeen: boolean,
  ): void {
    const store = this.s.store;
    // The state read when the task was handed out: only this frontier writes it while the host is in flight.
    const outcome = decideUrlOutcome(prev, result, { now, isHomePage: isHomePage(item.url), redirectHops: item.hops }, this.s.policy);
    // The job by its id; `#N` for a job number this frontier has not heard of yet (its record not read).
    const capture = captureOf(result, this.s.jobs.idOf(item.job) ?? `#${item.job}`);
    if (capture) outcome.row.captures = withCapture(prev.captures, capture);
    // The URL's state and its retry or refetch are one row (store/schedule-table.ts): written once.
    const next = outcome.reschedule && {
      ...outcome.reschedule,
      url: item.url,
      host: item.host,
      partition: item.partition,
      depth: item.depth,
      kind: item.kind,
      ...(item.job ? { job: item.job } : {}),
    };
    if (next && next.url === outcome.row.url && next.partition === outcome.row.partition) store.recordFetchScheduled(outcome.row, next);
    else {
      store.recordFetch(outcome.row);
      if (next) store.schedule(next);
    }
    for (const c of outcome.counters) this.s.counters.add(c);
    if (outcome.dequeue) {
      store.dequeue(item);
      this.hosts.dequeued(entry, item);
    }
    if (outcome.redirectTo && redirect.length > 0) this.admission.enqueueNew(redirect, redirectMaybe, confirmSeen);
    if (result.kind === "response") entry.pagesToday = bumpDaily(entry.pagesToday, now);
  }

  /** Counts a result under `fetch.`; `quiet`: a probe that found no sitemap, counted by sitemap-refs.ts alone. */
  private count(result: FetchResult, quiet: boolean): void {
    const counters = this.s.counters;
    if (result.kind === "response") {
      if (!quiet) counters.add(`fetch.status.${result.status}`);
      if (result.taskKind === "page") counters.add("fetch.pages");
      if (result.bytes > 0) {
        counters.add("fetch.bytes", result.bytes);
        if (result.taskKind === "page") this.s.histograms.observe("fetch.page-bytes", result.bytes);
      }
      if (result.taskKind === "media") counters.add("fetch.media");
      if (result.mediaFound) counters.add("content.media-listed", result.mediaFound);
      if (result.note) counters.add(`fetch.note.${noteKind(result.note)}`);
    } else {
      // A skip names the address rule that refused it: fetch.skipped.blocked-address.loopback.
      const reason = result.kind === "skipped" && result.refusal ? `.${result.refusal}` : "";
      counters.add(`fetch.${result.kind}.${result.error}${reason}`);
    }
    if (result.duplicateOf) counters.add("content.exact-duplicates");
    if (result.nearDuplicateOf) counters.add("content.near-duplicates");
  }
}
