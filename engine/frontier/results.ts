/**
 * Results: what comes back from a fetch, applied in batches (group commit): one WAL commit for a batch of
 * pages instead of one per page, which was the largest cost of a busy crawl. For each result: its links and
 * the sitemaps it named are screened (those of hosts another frontier owns forwarded there), the redirect
 * target too; then the seen-set answers for the whole batch at once; then one transaction applies every
 * result (result-effects.ts) and admits what was new. Only after the commit do the hosts go back to waiting:
 * a host must not be handed out again on a result that could still be lost. A result whose host has moved
 * on (redelivered, or its fetch released as lost) is stale: its links are still admitted.
 *
 * A result of a fetch this frontier did not hand out, for the URL at the head of a host with nothing in
 * flight, is adopted: applied as if it had been handed out (the URL is fetched, not asked again). That is a
 * partition rebuilt from its replica receiving the results of its former owner's last tasks (one paused,
 * cut off or lost, whose results were not yet replicated, and are acked only once they are), a node
 * restarted receiving its own, or a fetch released as lost whose result came after all. The request did
 * reach the host, so its time counts for politeness; a late result never brings the host's next request
 * forward (onFetchEnd), and the host waits for its new time rather than its old one.
 *
 * When the commit fails nothing of the batch is kept: each page counts as fetched without a result (its URL
 * stays queued, its host waits a full gap) and its links, found again next time, are confirmed in the store,
 * since their seen-set bits were set here. A task whose result never comes (aborted, or its fetch node died)
 * is given up the same way: its URL stays at the head of its queue, its host waits a gap from now.
 */
import { isDiskFull } from "../../core/errors/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask, TaskKind } from "../../core/model/index.ts";
import { isFetchLost, releaseLostFetch } from "../../core/politeness/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { Admission } from "./admission.ts";
import type { DiskWatch } from "./disk-full.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostEntry } from "./host-entry.ts";
import type { HostSitemaps } from "./host-sitemaps.ts";
import { ResultEffects, type PreparedResult } from "./result-effects.ts";
import type { Screening } from "./screening.ts";
import type { SeenRecovery } from "./seen-recovery.ts";
import { robotsSitemapRefs, splitSitemapRefs } from "./sitemap-refs.ts";

/** URLs whose result could not be committed, remembered so their links, found again, are confirmed in the store. */
const RECOMMIT_MAX = 100_000;

/** A fetch result to apply, with the links it found. */
export interface ResultItem {
  result: FetchResult;
  links: readonly DiscoveredUrl[];
  /**
   * Confirm every "maybe seen" of its links and redirect target in the store: the result came a second
   * time (redelivered), and its first attempt may have set seen-set bits without committing.
   */
  confirmSeen?: boolean;
}

export class Results {
  /** URLs whose result failed to commit (their links' seen-set bits may be set with nothing stored). */
  private readonly recommit = new Set<string>();
  private readonly effects: ResultEffects;

  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly screening: Screening,
    private readonly sitemaps: HostSitemaps,
    private readonly admission: Admission,
    private readonly seenRecovery: SeenRecovery,
    private readonly disk: DiskWatch,
  ) {
    this.effects = new ResultEffects(s, hosts, sitemaps, admission);
  }

  /** Applies many results, and admits the links they found, in one transaction. */
  async completeMany(items: readonly ResultItem[]): Promise<void> {
    const close = this.seenRecovery.window();
    try {
      await this.completeInWindow(items);
    } finally {
      close();
    }
    this.admission.enforceSizeLimit();
  }

  private async completeInWindow(items: readonly ResultItem[]): Promise<void> {
    const prepared: PreparedResult[] = [];
    const late: DiscoveredUrl[] = [];
    let lateConfirm = false;
    const forwards: Promise<void>[] = [];
    const lateSitemaps: DiscoveredUrl[] = [];
    // What screening refused is counted once the seen-set answered: a batch it refuses (a partition lost
    // or being rebuilt) comes back and is screened again.
    const tally = new Counters();
    const forward = this.s.opts.forward;
    for (const { result, links: found, confirmSeen = false } of items) {
      const { pages, refs } = splitSitemapRefs(found);
      const entry = this.s.hosts.get(result.host);
      const adopted = entry && !entry.inFlight ? this.adoption(entry, result) : undefined;
      const flight = entry?.inFlight ?? adopted;
      // A sitemap lists pages: its entries are queued as pages whatever kind they came marked with.
      const links =
        flight?.task.kind === "sitemap" ? pages.map((u) => (u.kind === undefined ? u : { ...u, kind: "page" as const })) : pages;
      if (!entry || !flight || (!adopted && flight.task.taskId !== result.taskId)) {
        // A redelivered or late result: its host has moved on. Its links are still worth admitting.
        this.s.counters.add("frontier.stale-results");
        for (const u of links) late.push(u);
        for (const u of this.sitemaps.route(refs, forwards, tally)) lateSitemaps.push(u);
        lateConfirm ||= confirmSeen;
        continue;
      }
      // robots.txt names the host's sitemaps; they are read only for a host the crawl has pages to fetch from.
      if (flight.task.kind === "robots" && entry.queued > 0) {
        for (const u of robotsSitemapRefs(result, this.s.policy.sitemaps, entry.head?.depth ?? 0)) refs.push(u);
      }
      const sitemaps = this.sitemaps.route(refs, forwards, tally);
      const candidates = this.screening.pages(links, tally);
      const target = result.redirectTo
        ? {
            url: result.redirectTo,
            host: hostKeyOf(result.redirectTo),
            depth: flight.task.depth,
            redirectHops: flight.task.redirectHops + 1,
            sourceUrl: result.url,
            // A media file that moved is still a media file, and the target is the same job's.
            ...(flight.task.kind === "media" ? { kind: "media" as const } : {}),
            ...(flight.item?.job ? { job: flight.item.job } : {}),
          }
        : undefined;
      // A target the address policy refuses is dropped here, before it could be forwarded to its owner.
      const admissible = target !== undefined && !this.screening.refusedAddress(target, tally);
      const foreign = admissible && forward !== undefined && !forward.owns(target.host);
      if (foreign && target.redirectHops <= this.s.policy.maxRedirects) forwards.push(forward!.send([target]));
      const redirect = admissible && !foreign ? this.screening.pages([target], tally) : [];
      // The recommit mark is taken (deleted) either way: it holds for one retry.
      const confirm = this.recommit.delete(result.url) || confirmSeen;
      prepared.push({ result, entry, flight, candidates, redirect, sitemaps, confirmSeen: confirm, adopted: adopted !== undefined });
    }
    await Promise.all(forwards);
    await this.publish(prepared);
    const lateCandidates = this.screening.pages(late, tally);
    const maybe = await this.admission.checkSeen([...prepared.flatMap((p) => [...p.candidates, ...p.redirect]), ...lateCandidates]);
    this.screening.count(tally);
    const now = this.s.now();
    const touched: Array<{ entry: HostEntry; kind: TaskKind }> = [];
    try {
      this.s.store.tx(() => {
        let offset = 0;
        for (const p of prepared) {
          const mine = maybe.slice(offset, offset + p.candidates.length + p.redirect.length);
          offset += mine.length;
          if (p.adopted ? p.entry.inFlight !== undefined : p.entry.inFlight !== p.flight) {
            // The fetch was released (lost-fetch lease) while the seen-set answered: a late result. Keep its links.
            this.s.counters.add("frontier.stale-results");
            this.admission.enqueueNew([...p.candidates, ...p.redirect], mine, p.confirmSeen);
            this.sitemaps.offer(p.sitemaps, now);
            continue;
          }
          if (p.adopted) {
            // Out of the ready queue: its new time (never earlier than the old) decides when it is next asked.
            this.s.ready.remove(p.entry.key);
            this.s.counters.add("frontier.results-adopted");
          }
          this.effects.apply(p, mine, now);
          this.sitemaps.offer(p.sitemaps, now);
          touched.push({ entry: p.entry, kind: p.flight.task.kind });
        }
        this.admission.enqueueNew(lateCandidates, maybe.slice(offset), lateConfirm);
        this.sitemaps.offer(lateSitemaps, now);
      });
    } catch (error) {
      this.notCommitted(prepared, lateCandidates, lateSitemaps);
      this.disk.writeFailed(error);
      throw error;
    }
    this.hosts.settleFetched(touched);
  }

  /**
   * Gives the batch's page and media results to the feed, each with its job's id, before they are applied:
   * a result applied is in the feed, and one given again (redelivered, or this batch failing) is dropped by
   * the feed by its task id. A result of a job whose record this frontier has not heard is left out, counted.
   */
  private async publish(prepared: readonly PreparedResult[]): Promise<void> {
    const feed = this.s.opts.feed;
    if (!feed) return;
    const items: Array<{ result: FetchResult; job: string }> = [];
    for (const p of prepared) {
      const kind = p.flight.task.kind;
      if (kind !== "page" && kind !== "media") continue;
      const job = this.s.jobs.idOf(p.flight.item?.job ?? p.flight.task.job);
      if (job === undefined) this.s.counters.add("feed.unknown-job");
      else items.push({ result: p.result, job });
    }
    if (items.length > 0) await feed(items);
  }

  /**
   * The flight a result stands for when this frontier did not hand its task out: its URL is the head of the
   * host's queue, as a page or media task of that kind (see the module comment). Undefined otherwise.
   */
  private adoption(entry: HostEntry, result: FetchResult): HostEntry["inFlight"] {
    if (result.kind === "skipped" || (result.taskKind !== "page" && result.taskKind !== "media")) return undefined;
    const item = this.s.store.head(entry.partition, entry.key);
    if (!item || item.url !== result.url || item.kind !== result.taskKind) return undefined;
    const task: FetchTask = {
      taskId: result.taskId,
      kind: item.kind,
      url: item.url,
      host: entry.key,
      partition: entry.partition,
      depth: item.depth,
      redirectHops: item.hops,
      hostGapMs: 0,
      issuedAt: result.startedAt,
      ...(item.job ? { job: item.job } : {}),
    };
    return { task, item, prev: this.s.store.getUrl(item.partition, item.url) };
  }

  /**
   * Nothing of the batch was committed: each page counts as fetched without a result (its URL stays
   * queued, its host waits a full gap), and its links, found again next time, are confirmed in the store
   * (their seen-set bits were set here).
   */
  private notCommitted(
    prepared: readonly PreparedResult[],
    lateCandidates: readonly DiscoveredUrl[],
    lateSitemaps: readonly DiscoveredUrl[],
  ): void {
    if (this.recommit.size + prepared.length > RECOMMIT_MAX) this.recommit.clear();
    for (const p of prepared) this.recommit.add(p.result.url);
    // Hosts whose flight this batch answered; a host handed out again meanwhile keeps its new flight.
    const fetched = new Set(prepared.filter((p) => !p.entry.inFlight || p.entry.inFlight === p.flight).map((p) => p.entry.key));
    const linked = new Set([...lateCandidates, ...lateSitemaps].map((u) => u.host));
    for (const p of prepared) for (const u of [...p.candidates, ...p.redirect, ...p.sitemaps]) if (!fetched.has(u.host)) linked.add(u.host);
    this.hosts.rollBack(fetched, true);
    this.hosts.rollBack(linked, false);
    this.s.counters.add("frontier.results-not-committed", prepared.length);
  }

  /**
   * Gives up a task whose result will never come (the crawl is stopping and aborted it). Its URL stays at
   * the head of the host's queue, so a resumed crawl fetches it; the host waits a full gap from now, since
   * the server may have seen the request.
   */
  abandon(task: FetchTask): void {
    const entry = this.s.hosts.get(task.host);
    if (!entry?.inFlight || entry.inFlight.task.taskId !== task.taskId) return;
    entry.inFlight = undefined;
    this.s.inFlightCount--;
    entry.state = releaseLostFetch(entry.state, this.s.now(), this.s.policy);
    this.s.keyGate.ended(entry, this.s.now());
    try {
      this.s.store.tx(() => this.hosts.save(entry));
    } catch (error) {
      // The host's wait holds in memory; the store keeps an older state, which a restart treats as unclean.
      this.disk.writeFailed(error);
      if (!isDiskFull(error)) throw error;
    }
    this.s.counters.add("frontier.abandoned");
    this.hosts.settle(entry);
  }

  /**
   * Releases every host whose fetch has been in flight for the whole fetch lease without a result (its fetch
   * node died and the bus did not redeliver): like `abandon`. Returns the released tasks.
   */
  releaseLost(now: number): FetchTask[] {
    const lost: FetchTask[] = [];
    for (const entry of this.s.hosts.values()) {
      if (entry.inFlight && isFetchLost(entry.state, now, this.s.policy)) lost.push(entry.inFlight.task);
    }
    for (const task of lost) {
      this.abandon(task);
      this.s.counters.add("frontier.lost-fetches");
    }
    return lost;
  }
}
