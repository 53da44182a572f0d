/**
 * Lean hosts (past `hotHosts` active hosts, a host keeps its queue head and robots.txt in memory only while
 * it has a fetch in flight, and only their priority and expiry between turns): what a user would notice if
 * that went wrong is a different crawl. So the same crawl runs on a frontier that keeps everything and on
 * one that is lean from its first host, and every task each hands out, in order and at the same time, and
 * every counter must be the same.
 */
import { expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 11, 4, 12);
const HOSTS = Array.from({ length: 9 }, (_, i) => `h${i}.test`);

function setup(hotHosts: number) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "probe", minGapMs: 1_000, gapMarginMs: 5, maxQueuePerHost: 12 },
    partitions: 16,
    maxQueued: 40,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    hotHosts,
  });
  return { frontier, clock };
}

const link = (url: string, depth: number): DiscoveredUrl => ({ url, host: hostKeyOf(url), depth, redirectHops: 0 });

/** robots.txt of each host by its number: absent, naming a sitemap, forbidding a path, or failing (5xx). */
function robotsOf(task: FetchTask, i: number): Partial<FetchResult> {
  switch (i % 4) {
    case 0:
      return { status: 404, robots: { verdict: "allow-all" } };
    case 1:
      return { robots: { verdict: "parse", text: `Sitemap: http://${task.host}/sitemap.xml\n` } };
    case 2:
      return { robots: { verdict: "parse", text: "User-agent: *\nDisallow: /private/\n" } };
    default:
      return i === 3 ? { status: 503, robots: { verdict: "disallow-all" } } : { robots: { verdict: "allow-all" } };
  }
}

/**
 * A page's links: deep pages of its host (priority 3; some forbidden), and of another host its home page, a
 * deep page and a shallow one (priority 2: it goes ahead of that host's deep pages while the host waits).
 */
function linksOf(task: FetchTask, i: number): DiscoveredUrl[] {
  if (task.kind !== "page") return [];
  const depth = task.depth + 1;
  const other = HOSTS[(i + 1 + (task.url.length % 3)) % HOSTS.length]!;
  return [
    link(`http://${task.host}/p${depth}-${task.url.length % 5}`, depth + 3),
    link(`http://${task.host}/private/x${depth}`, depth),
    link(`http://${task.host}/q${depth}`, depth + 4),
    link(`http://${other}/`, depth),
    link(`http://${other}/from-${task.host}-${depth}`, depth + 3),
    link(`http://${other}/s-${task.url.length % 7}`, 1),
  ];
}

function answer(task: FetchTask, at: number): FetchResult {
  const i = HOSTS.indexOf(task.host);
  const base = { taskId: task.taskId, url: task.url, host: task.host, partition: task.partition, startedAt: at, endedAt: at + 20 };
  const extra = task.kind === "robots" ? robotsOf(task, i) : task.kind === "sitemap" ? { status: 404 } : {};
  const status = task.kind === "page" && task.url.endsWith("-3") ? 500 : 200;
  return { ...base, kind: "response", taskKind: task.kind, status, linksFound: 0, bytes: 100, ...extra } as FetchResult;
}

/** The crawl, driven the same way on any frontier: tasks in batches of 4, answered at once, the clock jumping. */
async function crawl(hotHosts: number): Promise<{ tasks: string[]; counters: Record<string, number> }> {
  const { frontier, clock } = setup(hotHosts);
  await frontier.addSeeds(HOSTS.map((h) => link(`http://${h}/`, 0)));
  const tasks: string[] = [];
  for (let step = 0; step < 2_000; step++) {
    const batch = frontier.nextTasks(4);
    if (batch.length === 0) {
      const wake = frontier.nextWakeAt();
      if (wake === undefined || wake > T0 + 3_600_000) break;
      clock.now = Math.max(clock.now + 1, wake);
      continue;
    }
    for (const t of batch) tasks.push(`${clock.now - T0} ${t.kind} ${t.url}`);
    clock.now += 20;
    await frontier.completeMany(batch.map((t) => ({ result: answer(t, clock.now - 20), links: linksOf(t, HOSTS.indexOf(t.host)) })));
  }
  return { tasks, counters: frontier.snapshot(true).counters };
}

test("lean hosts - a frontier that keeps no heads or robots.txt between turns hands out the same tasks, in the same order, as one that keeps them", async () => {
  const full = await crawl(1_000);
  const lean = await crawl(0);
  expect(full.tasks.length).toBeGreaterThan(60);
  expect(full.tasks.some((t) => t.includes(" sitemap "))).toBe(true);
  expect(full.counters["robots.disallowed"] ?? 0).toBeGreaterThan(0);
  expect(full.counters["frontier.dropped-size-limit"] ?? 0).toBeGreaterThan(0);
  expect(lean.tasks).toEqual(full.tasks);
  expect(lean.counters).toEqual(full.counters);
});
