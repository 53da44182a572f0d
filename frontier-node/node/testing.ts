/**
 * Test support for the frontier node's tests (not used by the node itself): a ring builder, a fake fetch
 * node that answers every task over the bus with a scripted result and links (as fetch-node/ would), a
 * condition wait that names what it waited for, and a node starter over in-process adapters
 * (MemoryClusterState, MemoryBus, a FrontierStore in memory, a local Bloom seen-set). Everything a test
 * starts is collected in a `TestBed` and torn down by `close()`.
 */
import { groupByOwner } from "../../core/addressing/index.ts";
import type { RingRecord } from "../../core/cluster/index.ts";
import type { ClusterState, MessageBus, Subscription } from "../../core/ports/index.ts";
import { parseRegionRules } from "../../core/cluster/index.ts";
import { resolvePolicy } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { MemoryBus, MemoryClusterState, LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { FrontierStore } from "../../engine/frontier/index.ts";
import { FrontierNode, type FrontierNodeOptions } from "./frontier-node.ts";

export const REGION = "r1";
/** Every host is in REGION. */
const RULES = parseRegionRules("", REGION);

/** A ring of one region where `owner(p)` serves p and `previous(p)` (default none) still has to hand it over. */
export function ringOf(
  partitions: number,
  owner: (p: number) => string,
  previous: (p: number) => string = () => "",
  epoch = 1,
): RingRecord {
  const owners: string[] = [];
  const prev: string[] = [];
  for (let p = 0; p < partitions; p++) {
    owners.push(owner(p));
    prev.push(previous(p));
  }
  return { epoch, partitions, vnodes: 16, regions: { [REGION]: { owners, previous: prev } } };
}

/** Writes `ring` over whatever ring is stored (re-reading the revision). */
export async function writeRing(state: Pick<ClusterState, "getRing" | "casRing">, ring: RingRecord): Promise<void> {
  for (;;) {
    const current = await state.getRing();
    if ((await state.casRing(ring, current?.revision ?? 0)) !== undefined) return;
  }
}

/** Polls `condition` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface FakeFetcherOptions {
  /** Links of a page; default none. */
  links?: (url: string) => string[];
  /** Whether to answer a task at all; a task not answered is acked and dropped (a lost result). */
  answer?: (task: FetchTask) => boolean;
  /** A page that answers 301 to this (normalized) target. */
  redirect?: (url: string) => string | undefined;
  /** Called as each task arrives. */
  onTask?: (task: FetchTask) => void;
  /** The answer to a task waits for this (e.g. a test's gate). */
  hold?: (task: FetchTask) => Promise<void> | undefined;
}

/** A fetch node on the bus: robots.txt tasks answer "allow all", page tasks 200 with `links(url)`. */
export class FakeFetcher {
  readonly tasks: FetchTask[] = [];
  private readonly sub: Subscription;

  constructor(
    bus: MessageBus,
    partitions: number,
    private readonly opts: FakeFetcherOptions = {},
  ) {
    this.sub = bus.consumeTasks(
      REGION,
      async (d) => {
        const task = d.data;
        this.tasks.push(task);
        this.opts.onTask?.(task);
        if (this.opts.answer && !this.opts.answer(task)) {
          await d.ack();
          return;
        }
        await this.opts.hold?.(task);
        const links = task.kind === "page" ? (this.opts.links?.(task.url) ?? []) : [];
        const found = links.map(
          (url): DiscoveredUrl => ({ url, host: hostKeyOf(url), depth: task.depth + 1, redirectHops: 0, sourceUrl: task.url }),
        );
        for (const g of groupByOwner(found, { rules: RULES, partitions })) await bus.publishUrls(g.region, g.partition, g.urls);
        const target = task.kind === "page" ? this.opts.redirect?.(task.url) : undefined;
        const result = resultFor(task, links.length);
        await bus.publishResult(REGION, target ? { ...result, status: 301, redirectTo: target, fingerprint: undefined } : result);
        await d.ack();
      },
      { concurrency: 64 },
    );
  }

  /** Page URLs fetched, in order. */
  pages(): string[] {
    return this.tasks.filter((t) => t.kind === "page").map((t) => t.url);
  }

  stop(): Promise<void> {
    return this.sub.stop();
  }
}

export function resultFor(task: FetchTask, linksFound = 0): FetchResult {
  const at = task.issuedAt;
  const base = {
    taskId: task.taskId,
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    startedAt: at,
    endedAt: at,
    bytes: 0,
  } as const;
  if (task.kind === "robots") return { ...base, kind: "response", status: 404, robots: { verdict: "allow-all" }, linksFound: 0 };
  // A page's record "lies" in a fake file, at an offset of its own, so a node's captures can be asked for.
  const warc = { file: "fake-fetcher.warc.gz", offset: task.url.length * 1000, length: 100 };
  return { ...base, kind: "response", status: 200, fingerprint: `fp-${task.url}`, linksFound, bytes: 100, contentType: "text/html", warc };
}

/** Seed-style DiscoveredUrls for normalized URLs. */
export function discovered(urls: string[], isSeed = false): DiscoveredUrl[] {
  return urls.map((url) => ({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0, ...(isSeed ? { isSeed: true } : {}) }));
}

/** Publishes URLs to their partitions' streams, as a fetch node or the coordinator would. */
export async function publishUrls(bus: MessageBus, partitions: number, urls: DiscoveredUrl[]): Promise<void> {
  for (const g of groupByOwner(urls, { rules: RULES, partitions })) await bus.publishUrls(g.region, g.partition, g.urls);
}

export class TestBed {
  readonly state = new MemoryClusterState();
  readonly bus: MemoryBus;
  private readonly nodes: FrontierNode[] = [];
  private readonly stores: FrontierStore[] = [];
  private readonly fetchers: FakeFetcher[] = [];

  constructor(
    readonly partitions = 8,
    busOptions: ConstructorParameters<typeof MemoryBus>[0] = {},
  ) {
    this.bus = new MemoryBus({ onError: () => {}, ...busOptions });
  }

  async ensureRegion(): Promise<void> {
    await this.bus.ensureRegion(REGION, this.partitions);
  }

  fetcher(opts: FakeFetcherOptions = {}): FakeFetcher {
    const f = new FakeFetcher(this.bus, this.partitions, opts);
    this.fetchers.push(f);
    return f;
  }

  /** Starts a node over a fresh in-memory store (or `store`), with a short heartbeat and sweep. */
  async node(
    id: string,
    overrides: Omit<Partial<FrontierNodeOptions>, "policy"> & { policy?: Record<string, string> } = {},
  ): Promise<FrontierNode> {
    const { policy: policyFlags, ...rest } = overrides;
    const store = rest.store ?? FrontierStore.open(":memory:");
    this.stores.push(store);
    const node = await FrontierNode.start({
      nodeId: id,
      region: REGION,
      partitions: this.partitions,
      rules: RULES,
      // The /sitemap.xml probe (the default) would be one more task per host: tests of it ask for it.
      policy: resolvePolicy({ "min-gap": "0", sitemaps: "robots", ...policyFlags }, {}),
      credit: 64,
      heartbeatIntervalMs: 50,
      maxQueued: 1_000_000,
      stopGraceMs: 1_000,
      lostSweepIntervalMs: 20,
      grpcListen: "127.0.0.1:0",
      state: this.state,
      bus: this.bus,
      store,
      seen: LocalBloomSeenSet.open(undefined, 10_000),
      ...rest,
    });
    this.nodes.push(node);
    return node;
  }

  async close(): Promise<void> {
    for (const f of this.fetchers) await f.stop();
    for (const n of this.nodes) await n.stop();
    await this.bus.close();
    await this.state.close();
    for (const s of this.stores) {
      try {
        s.close();
      } catch {
        // already closed by the test
      }
    }
  }
}
