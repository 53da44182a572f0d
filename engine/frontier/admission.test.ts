/**
 * Admission and the address policy: every URL that enters the frontier (seeds, links, redirect targets)
 * is judged by core/net before anything else, so no task is ever planned for an internal address, a
 * local name or an empty host; each refusal is counted by its reason and `explainUrl` names it. Then the
 * seen check and the queue behind it (admission.ts): a Bloom "maybe" confirmed where a miss would cost,
 * a batch failed whole when the seen-set cannot vouch for it, and the queue's size limit.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { SeenSetLostError, type SeenSet } from "../../core/ports/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { hostKeyOf, normalizeUrl } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier, type FrontierOptions } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

function setup(policy: Partial<PolicyConfig> = {}, forward?: { owns(host: string): boolean; sent: DiscoveredUrl[] }) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    // The /sitemap.xml probe (the default) is one more task per host; sitemaps.test.ts covers it. These tests step through pages.
    policy: { ...DEFAULT_POLICY, minGapMs: 0, sitemaps: "robots", ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    ...(forward
      ? {
          forward: {
            owns: forward.owns,
            send: async (urls: DiscoveredUrl[]) => {
              for (const u of urls) forward.sent.push(u);
            },
          },
        }
      : {}),
  });
  return { frontier, clock };
}

/** A URL as the fetch path hands it over: normalized, addressed by host key. */
function url(input: string, depth = 1): DiscoveredUrl {
  const n = normalizeUrl(input);
  if (!n.ok) throw new Error(`${input}: ${n.reason}`);
  return { url: n.url, host: hostKeyOf(n.url), depth, redirectHops: 0 };
}

function result(task: FetchTask, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: T0,
    endedAt: T0 + 10,
    linksFound: 0,
    bytes: 100,
    ...extra,
  };
}

const refusedCounters = (frontier: Frontier) =>
  Object.fromEntries(Object.entries(frontier.counters.toJSON()).filter(([name]) => name.startsWith("admission.refused.")));

const HOSTILE = [
  "http://127.0.0.1/",
  "http://2130706433/",
  "http://0x7f000001/",
  "http://0177.0.0.1/",
  "http://127.1/",
  "http://[::1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://localhost/",
  "http://app.localhost:3000/",
  "http://169.254.169.254/latest/meta-data/",
  "http://[fd00:ec2::254]/",
  "http://10.0.0.5/",
  "http://100.64.0.1/",
  "http://0.0.0.0/",
  "http:///nohost",
  "http://printer.local/",
];

describe("frontier admission: the address policy", () => {
  test("seeds on internal addresses and local names are refused, counted by reason, and never handed out", async () => {
    const { frontier } = setup();
    const added = await frontier.addSeeds([...HOSTILE.map((u) => url(u, 0)), url("http://public.test/", 0)]);
    expect(added).toBe(1);
    expect(frontier.queued).toBe(1);
    // Five spellings of 127.0.0.1 normalize to one URL (one refusal); ::1 and ::ffff:7f00:1 are two more.
    expect(refusedCounters(frontier)).toEqual({
      "admission.refused.loopback": 3,
      "admission.refused.localhost": 2,
      "admission.refused.metadata": 2,
      "admission.refused.private": 1,
      "admission.refused.cgnat": 1,
      "admission.refused.this-network": 1,
      "admission.refused.single-label": 1,
      "admission.refused.local-name": 1,
    });
    const tasks = frontier.nextTasks(100);
    expect(tasks.map((t) => t.host)).toEqual(["public.test"]);
  });

  test("links and redirect targets to internal addresses are refused, and a redirect target is not forwarded to an owner", async () => {
    const forward = { owns: (host: string) => host === "public.test", sent: [] as DiscoveredUrl[] };
    const { frontier, clock } = setup({}, forward);
    await frontier.addSeeds([url("http://public.test/", 0), url("http://public.test/moved", 0)]);
    const [robotsTask] = frontier.nextTasks(10);
    await frontier.complete(result(robotsTask!, { robots: { verdict: "allow-all" } }), []);
    clock.now += 60_000;
    const [page] = frontier.nextTasks(10);
    await frontier.complete(result(page!), [url("http://localhost/admin"), url("http://0x0a000001/"), url("http://public.test/next")]);
    clock.now += 60_000;
    const [moved] = frontier.nextTasks(10);
    expect(moved!.url).toBe("http://public.test/moved");
    await frontier.complete(result(moved!, { status: 302, redirectTo: url("http://169.254.169.254/latest/").url }), []);
    expect(forward.sent).toEqual([]);
    expect(refusedCounters(frontier)).toEqual({
      "admission.refused.localhost": 1,
      "admission.refused.private": 1,
      "admission.refused.metadata": 1,
    });
    expect(frontier.queued).toBe(1); // public.test/next only
  });

  test("with private addresses allowed, loopback is admitted but metadata stays refused; deny lists refuse the rest", async () => {
    const { frontier } = setup({ allowPrivateAddresses: true, denyHosts: ["corp.example.com"], denyAddresses: ["203.0.113.0/24"] });
    const added = await frontier.addSeeds(
      [
        "http://127.0.0.1:8080/",
        "http://localhost/",
        "http://169.254.169.254/",
        "http://wiki.corp.example.com/",
        "http://203.0.113.7/",
      ].map((u) => url(u, 0)),
    );
    expect(added).toBe(2);
    expect(refusedCounters(frontier)).toEqual({
      "admission.refused.metadata": 1,
      "admission.refused.denied-host": 1,
      "admission.refused.denied-address": 1,
    });
  });

  test("explain names the address rule that refuses a URL, and nothing for a public one", async () => {
    const { frontier } = setup();
    const refused = url("http://0x7f000001/");
    expect(frontier.explainUrl(refused.url, refused.host).addressRefusal).toBe("loopback: 127.0.0.1 is a loopback address");
    const metadata = url("http://metadata.google.internal/computeMetadata/v1/");
    expect(frontier.explainUrl(metadata.url, metadata.host).addressRefusal).toBe(
      "metadata: metadata.google.internal is the name of a metadata service",
    );
    const fine = url("http://public.test/");
    expect(frontier.explainUrl(fine.url, fine.host).addressRefusal).toBe("");
  });
});

/** A seen-set that answers "maybe seen" for every URL: what a Bloom filter's false positive looks like. */
const alwaysMaybe: SeenSet = { checkAndAdd: async (_p, keys) => keys.map(() => true), close: async () => {} };

function withSeen(seen: SeenSet, extra: Partial<FrontierOptions> = {}) {
  let n = 0;
  return new Frontier({
    store: FrontierStore.open(":memory:"),
    seen,
    policy: { ...DEFAULT_POLICY, sitemaps: "robots" },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => T0,
    newTaskId: () => `t${n++}`,
    ...extra,
  });
}

describe("admission: the seen check and the queue", () => {
  test("admission - a link the seen-set only thinks it saw is skipped, but a seed or a home page is confirmed in the store and queued", async () => {
    const frontier = withSeen(alwaysMaybe);
    expect(await frontier.admit([url("http://a.test/page"), url("http://b.test/")])).toBe(1);
    expect(await frontier.addSeeds([url("http://c.test/start")])).toBe(1);
    expect(frontier.counters.toJSON()).toMatchObject({ "seen.skipped": 1, "seen.bloom-false-positive-caught": 2, "frontier.admitted": 2 });
    // Now in the store, the home page is known for what it is.
    expect(await frontier.admit([url("http://b.test/")])).toBe(0);
    expect(frontier.queued).toBe(2);
  });

  test("admission - a batch that comes a second time has every maybe confirmed in the store, so what its first try half-did is not lost", async () => {
    const frontier = withSeen(alwaysMaybe);
    expect(await frontier.admit([url("http://a.test/page")], { confirmSeen: true })).toBe(1);
    expect(await frontier.admit([url("http://a.test/page")], { confirmSeen: true })).toBe(0);
    expect(frontier.queued).toBe(1);
  });

  test("admission - a seen-set that cannot vouch for one partition fails the whole batch, and nothing of it is queued", async () => {
    const lost = partitionOf("lost.test", 16);
    const frontier = withSeen({
      checkAndAdd: async (p, keys) => {
        if (p === lost) throw new SeenSetLostError(p, "missing");
        return keys.map(() => false);
      },
      close: async () => {},
    });
    const other = ["a.test", "b.test", "c.test"].find((h) => partitionOf(h, 16) !== lost)!;
    await expect(frontier.admit([url(`http://${other}/`), url("http://lost.test/")])).rejects.toBeInstanceOf(SeenSetLostError);
    expect(frontier.queued).toBe(0);
    expect(frontier.nextTasks(10)).toEqual([]);
  });

  test("admission - over the queue limit the lowest-priority, newest URLs are dropped, counted, and their state says why", async () => {
    const frontier = withSeen(LocalBloomSeenSet.open(undefined, 10_000), { maxQueued: 2 });
    await frontier.addSeeds([url("http://a.test/")]);
    await frontier.admit([url("http://a.test/deep/older", 4), url("http://a.test/deep/newer", 4)]);
    expect(frontier.queued).toBe(2);
    expect(frontier.counters.toJSON()["frontier.dropped-size-limit"]).toBe(1);
    const dropped = url("http://a.test/deep/newer");
    expect(frontier.explainUrl(dropped.url, dropped.host)).toMatchObject({ state: "dropped", note: "frontier size limit" });
    expect(frontier.explainUrl("http://a.test/deep/older", "a.test").state).toBe("queued");
  });

  test("admission - without a size limit nothing is dropped, and a store opened with one is then opened without its index", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "admission-")), "frontier.sqlite");
    const withLimit = (maxQueued?: number) => {
      const store = FrontierStore.open(path);
      return { store, frontier: withSeen(LocalBloomSeenSet.open(undefined, 10_000), { store, maxQueued }) };
    };
    const hasIndex = (store: FrontierStore) => {
      try {
        store.tx(() => store.dropLowestPriority(0));
        return true;
      } catch (error) {
        if (/no such index/.test(String(error))) return false;
        throw error;
      }
    };
    const unlimited = withLimit(undefined);
    await unlimited.frontier.addSeeds([url("http://a.test/")]);
    await unlimited.frontier.admit([url("http://a.test/deep/older", 4), url("http://a.test/deep/newer", 4)]);
    expect(unlimited.frontier.queued).toBe(3);
    expect(unlimited.frontier.counters.toJSON()["frontier.dropped-size-limit"]).toBeUndefined();
    expect(hasIndex(unlimited.store)).toBe(false);
    unlimited.store.close();
    // Reopened with a limit: the index is built over what is queued, and the limit holds at once.
    const limited = withLimit(2);
    expect(hasIndex(limited.store)).toBe(true);
    await limited.frontier.admit([url("http://a.test/deep/newest", 4)]);
    expect(limited.frontier.queued).toBe(2);
    expect(limited.frontier.explainUrl("http://a.test/deep/newest", "a.test").state).toBe("dropped");
    expect(limited.frontier.explainUrl("http://a.test/deep/newer", "a.test").state).toBe("dropped");
    limited.store.close();
    const again = withLimit(0);
    expect(hasIndex(again.store)).toBe(false);
    expect(again.frontier.queued).toBe(2);
    again.store.close();
  });
});
