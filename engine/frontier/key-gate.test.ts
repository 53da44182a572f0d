/**
 * The key gate, driven through the Frontier on a simulated clock: with `--politeness-key domain` the hosts
 * of one registrable domain never have two requests in flight at once, and the next request to the domain
 * starts no sooner than the gap after the last one ended (judged from the start and end times the simulated
 * fetches had, no tolerance); the domain's hosts take turns; the largest Crawl-delay of a domain's hosts is
 * the domain's gap; and with the default host key, hosts of one domain are fetched side by side as before.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostPartition } from "../../core/addressing/index.ts";
import { registrableDomain } from "../../core/scope/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 11, 4, 12);
const FETCH_MS = 20;

interface Request {
  task: FetchTask;
  start: number;
  end: number;
}

function setup(policy: Partial<PolicyConfig>) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "robots", gapFetchMultiplier: 0, gapMarginMs: 0, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock };
}

function seed(u: string): DiscoveredUrl {
  return { url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0 };
}

/**
 * Runs the crawl for a simulated minute (long enough for every URL, well before any refetch is due): every
 * task answered FETCH_MS after it was handed out, robots.txt by `robotsOf`.
 */
async function crawl(frontier: Frontier, clock: { now: number }, robotsOf: (host: string) => string = () => "User-agent: *\n") {
  const done: Request[] = [];
  let open: Request[] = [];
  for (let step = 0; step < 100_000; step++) {
    for (const task of frontier.nextTasks(100)) open.push({ task, start: clock.now, end: clock.now + FETCH_MS });
    const ending = open.filter((r) => r.end <= clock.now);
    open = open.filter((r) => r.end > clock.now);
    for (const r of ending) {
      const result: FetchResult = {
        taskId: r.task.taskId,
        kind: "response",
        taskKind: r.task.kind,
        url: r.task.url,
        host: r.task.host,
        partition: r.task.partition,
        status: 200,
        startedAt: r.start,
        endedAt: r.end,
        linksFound: 0,
        bytes: 100,
        ...(r.task.kind === "robots" ? { robots: { verdict: "parse" as const, text: robotsOf(r.task.host) } } : {}),
      };
      await frontier.complete(result, []);
      done.push(r);
    }
    if (ending.length > 0) continue;
    const wake = frontier.nextWakeAt();
    const nextEnd = open.reduce((least, r) => Math.min(least, r.end), Infinity);
    const next = Math.min(wake ?? Infinity, nextEnd);
    if (next === Infinity || next > T0 + 60_000) break;
    clock.now = Math.max(clock.now + 1, next);
  }
  return done;
}

/** Breaches of one request at a time and the gap per key: a request starting before the key's last end plus `gapMs`. */
function violations(requests: readonly Request[], keyOf: (host: string) => string, gapMs: number): string[] {
  const byKey = new Map<string, Request[]>();
  for (const r of requests) {
    const key = keyOf(r.task.host);
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  const out: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let lastEnd = -Infinity;
    for (const r of list) {
      if (r.start < lastEnd + gapMs) out.push(`${key}: ${r.task.url} started ${r.start - lastEnd} ms after the last end`);
      lastEnd = Math.max(lastEnd, r.end);
    }
  }
  return out;
}

const HOSTS = ["a.blog.example.co.uk", "b.blog.example.co.uk", "c.example.co.uk", "x.other.test", "y.other.test:8080"];
const seeds = () => HOSTS.flatMap((h) => [seed(`http://${h}/`), seed(`http://${h}/2`), seed(`http://${h}/3`)]);

describe("key gate", () => {
  test("key gate - with the domain key, a domain's hosts have one request at a time and the gap between them", async () => {
    const { frontier, clock } = setup({ politenessKey: "domain", minGapMs: 300 });
    await frontier.addSeeds(seeds());
    const done = await crawl(frontier, clock);
    expect(done.length).toBe(HOSTS.length * 4); // robots.txt and three pages a host, none lost to the gate
    expect(violations(done, registrableDomain, 300)).toEqual([]);
    // Each host still fetched its own robots.txt (RFC 9309), and it was a request to the domain like any other.
    expect(
      done
        .filter((r) => r.task.kind === "robots")
        .map((r) => r.task.host)
        .sort(),
    ).toEqual([...HOSTS].sort());
  });

  test("key gate - a domain's hosts take turns (round robin), none waits for another to finish its queue", async () => {
    const { frontier, clock } = setup({ politenessKey: "domain", minGapMs: 300 });
    await frontier.addSeeds(seeds());
    const done = await crawl(frontier, clock);
    expect(violations(done, registrableDomain, 300)).toEqual([]);
    const order = done.filter((r) => registrableDomain(r.task.host) === "example.co.uk").map((r) => r.task.host);
    // In every window of three requests to the domain, its three hosts each had one, after the first round.
    const rounds = order.slice(0, 12);
    for (let i = 0; i + 3 <= rounds.length; i += 3) expect(new Set(rounds.slice(i, i + 3)).size).toBe(3);
  });

  test("key gate - the largest Crawl-delay of a domain's hosts is the domain's gap", async () => {
    const { frontier, clock } = setup({ politenessKey: "domain", minGapMs: 100 });
    await frontier.addSeeds(seeds());
    const done = await crawl(frontier, clock, (host) =>
      host === "c.example.co.uk" ? "User-agent: *\nCrawl-delay: 2\n" : "User-agent: *\n",
    );
    const domain = done.filter((r) => registrableDomain(r.task.host) === "example.co.uk");
    const cRobots = domain.findIndex((r) => r.task.host === "c.example.co.uk" && r.task.kind === "robots");
    // From c's robots.txt on, every request to the domain waited 2 s after the one before, whatever its host.
    expect(violations(domain.slice(cRobots), registrableDomain, 2000)).toEqual([]);
    expect(domain.slice(cRobots + 1).some((r) => r.task.host !== "c.example.co.uk")).toBe(true);
    // The other domain kept its own, shorter gap.
    expect(violations(done, registrableDomain, 100)).toEqual([]);
  });

  test("key gate - with the host key (the default), hosts of one domain are fetched side by side and the gate holds nothing", async () => {
    const { frontier, clock } = setup({ minGapMs: 300 });
    await frontier.addSeeds(seeds());
    const done = await crawl(frontier, clock);
    expect(violations(done, (h) => h, 300)).toEqual([]);
    expect(violations(done, registrableDomain, 300).length).toBeGreaterThan(0);
    expect((frontier as unknown as { state: { keyGate: { size: number } } }).state.keyGate.size).toBe(0);
  });

  test("key gate - with the domain key, every host of a domain is queued and handed out in the domain's partition", async () => {
    const { frontier, clock } = setup({ politenessKey: "domain", minGapMs: 300 });
    await frontier.addSeeds(seeds());
    const done = await crawl(frontier, clock);
    for (const r of done) expect(r.task.partition).toBe(hostPartition(r.task.host, { partitions: 16, politenessKey: "domain" }));
    const partitionsOf = (domain: string) =>
      new Set(done.filter((r) => registrableDomain(r.task.host) === domain).map((r) => r.task.partition));
    expect(partitionsOf("example.co.uk").size).toBe(1);
    expect(partitionsOf("other.test").size).toBe(1);
    expect(frontier.partitionOf("a.blog.example.co.uk")).toBe(frontier.partitionOf("c.example.co.uk"));
  });
});
