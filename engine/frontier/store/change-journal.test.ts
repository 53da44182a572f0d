import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet } from "../../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../../core/config/index.ts";
import type { FetchTask, ResponseResult } from "../../../core/model/index.ts";
import { Frontier } from "../frontier.ts";
import { applyChanges, BadChangeBatchError } from "./changes.ts";
import { FrontierStore } from "./frontier-store.ts";
import { maxOf } from "../../../core/stats/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fileStore(): { path: string; open: () => FrontierStore } {
  const dir = mkdtempSync(join(tmpdir(), "journal-test-"));
  dirs.push(dir);
  const path = join(dir, "frontier.sqlite");
  return { path, open: () => FrontierStore.open(path, { journal: true }) };
}

const q = (partition: number, url: string) => ({
  partition,
  host: new URL(url).host,
  priority: 2 as const,
  url,
  depth: 1,
  hops: 0,
  kind: "page" as const,
});

test("journal - each transaction writes one row per partition it touched, numbered per partition, with the partition's epoch", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  const journal = store.journal!;
  const seen: number[][] = [];
  journal.onCommit((ps) => seen.push([...ps]));
  store.tx(() => {
    store.enqueue(q(1, "http://a.test/1"));
    store.enqueue(q(1, "http://a.test/2"));
    store.enqueue(q(2, "http://b.test/1"));
  });
  store.tx(() => journal.setEpoch(1, 42));
  store.tx(() => store.enqueue(q(1, "http://a.test/3")));
  expect(seen).toEqual([[1, 2], [1]]);
  const rows = journal.rows(1, 0, 10);
  expect(rows.map((r) => [r.n, r.epoch])).toEqual([
    [1, 0],
    [2, 42],
  ]);
  expect(JSON.parse(rows[0]!.body).map((c: unknown[]) => c[0])).toEqual(["q", "q"]);
  expect(journal.rows(2, 0, 10).map((r) => r.n)).toEqual([1]);
});

test("journal - a transaction that fails leaves no row, and its numbers are given out again", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  expect(() =>
    store.tx(() => {
      store.enqueue(q(1, "http://a.test/1"));
      throw new Error("boom");
    }),
  ).toThrow("boom");
  expect(store.journal!.rows(1, 0, 10)).toEqual([]);
  store.tx(() => store.enqueue(q(1, "http://a.test/2")));
  expect(store.journal!.rows(1, 0, 10).map((r) => r.n)).toEqual([1]);
});

test("journal - acknowledged rows go; numbering goes on after a restart, and after rows are dropped", () => {
  const f = fileStore();
  let store = f.open();
  for (let i = 0; i < 3; i++) store.tx(() => store.enqueue(q(1, `http://a.test/${i}`)));
  store.tx(() => store.journal!.acknowledge(1, 2, 100));
  expect(store.journal!.rows(1, 0, 10).map((r) => r.n)).toEqual([3]);
  expect(store.journal!.state(1)).toEqual({ epoch: 0, ackedN: 2, ackedSeq: 100 });
  store.close();
  store = f.open();
  store.tx(() => store.enqueue(q(1, "http://a.test/9")));
  expect(store.journal!.rows(1, 0, 10).map((r) => r.n)).toEqual([3, 4]);
  store.tx(() => store.journal!.drop(1));
  store.close();
  store = f.open();
  expect(store.journal!.rows(1, 0, 10)).toEqual([]);
  store.tx(() => store.enqueue(q(1, "http://a.test/10")));
  expect(store.journal!.rows(1, 0, 10).map((r) => r.n)).toEqual([5]);
  store.close();
});

test("journal - writes made untracked (imports, replays) are not journaled, and a store without a journal keeps none", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  store.untracked(() => store.tx(() => store.enqueue(q(1, "http://a.test/1"))));
  expect(store.journal!.partitions()).toEqual([]);
  expect(FrontierStore.open(":memory:").journal).toBeUndefined();
});

test("journal - a transaction's changes larger than one row's limit are split into consecutive rows", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  const long = "x".repeat(1_000);
  store.tx(() => {
    for (let i = 0; i < 600; i++) store.enqueue(q(3, `http://a.test/${long}${i}`));
  });
  const rows = store.journal!.rows(3, 0, 100);
  expect(rows.length).toBeGreaterThan(1);
  expect(rows.map((r) => r.n)).toEqual(rows.map((_, i) => i + 1));
  expect(rows.flatMap((r) => JSON.parse(r.body)).length).toBe(600);
  for (const r of rows) expect(r.body.length).toBeLessThanOrEqual(256 * 1024 + 2_000);
});

test("journal - replaying a store's rows onto another store rebuilds the partition, twice over changes nothing", () => {
  const source = FrontierStore.open(":memory:", { journal: true });
  const p = 4;
  source.tx(() => {
    source.enqueue(q(p, "http://a.test/1"));
    source.enqueue(q(p, "http://a.test/2"));
    source.saveHost("a.test", p, {
      state: {
        nextAllowedAt: 5,
        gapMs: 1000,
        inFlight: false,
        inFlightSince: null,
        paused: false,
        crawlDelayMs: 0,
        throttleMs: 0,
        consecutiveFailures: 0,
        failureRate: 0,
        fetches: 1,
        failures: 0,
        throttles: 0,
        lastStatus: 200,
        lastError: null,
      },
      pagesToday: null,
    });
    source.saveRobots("a.test", p, { verdict: "allow-all", fetchedAt: 1, expiresAt: 2 });
  });
  source.tx(() => {
    const head = source.head(p, "a.test")!;
    source.dequeue(head);
    source.setUrlState({ ...head, depth: 1 }, "fetched");
    source.schedule({ partition: p, url: head.url, host: head.host, priority: 2, depth: 1, dueAt: 99, kind: "page" });
  });
  source.tx(() => source.takeDue(100, 10));
  const rows = source.journal!.rows(p, 0, 10);
  const copy = FrontierStore.open(":memory:", { journal: true });
  for (let round = 0; round < 2; round++) for (const r of rows) applyChanges(copy, p, JSON.parse(r.body));
  const dump = (s: FrontierStore) =>
    JSON.stringify([
      s.queuedInPartition(p, undefined, 100),
      s.urlsInPartition(p, "", 100),
      s.scheduledInPartition(p),
      s.hostsInPartition(p),
    ]);
  expect(dump(copy)).toBe(dump(source));
  expect(copy.journal!.partitions()).toEqual([]);
  // The copy's own next URLs sort behind the replayed ones.
  copy.tx(() => copy.enqueue(q(p, "http://a.test/3")));
  const seqs = copy.queuedInPartition(p, undefined, 100).map((x) => x.seq);
  expect(seqs.at(-1)).toBeGreaterThan(maxOf(seqs.slice(0, -1)));
});

test("journal - a batch with a malformed change is refused whole, nothing written", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  expect(() =>
    applyChanges(store, 1, [
      ["q", "a.test", 2, 1, "http://a.test/", 0, 0],
      ["q", "a.test", 9],
    ]),
  ).toThrow(BadChangeBatchError);
  expect(() => applyChanges(store, 1, [["zz"]])).toThrow(BadChangeBatchError);
  expect(() => applyChanges(store, 1, [["h", "a.test", "{}"]])).toThrow(BadChangeBatchError);
  expect(store.totalQueued()).toBe(0);
});

test("journal - a host's sitemaps and its seed's scope root are journaled: a copy rebuilt from the rows reads the pending sitemap and keeps the scope", async () => {
  const P = 16;
  const clock = { now: Date.UTC(2026, 10, 29, 12) };
  let ids = 0;
  const frontierOver = (store: FrontierStore) =>
    new Frontier({
      store,
      seen: LocalBloomSeenSet.open(undefined, 10_000),
      policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, scope: "host" },
      partitions: P,
      maxQueued: 1_000_000,
      now: () => clock.now,
      newTaskId: () => `t${ids++}`,
    });
  const next = (f: Frontier): FetchTask => {
    clock.now += 1_000;
    const task = f.nextTasks(1)[0];
    if (!task) throw new Error("no task");
    return task;
  };
  const answer = (task: FetchTask, extra: Partial<ResponseResult> = {}): ResponseResult => ({
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: task.issuedAt,
    endedAt: task.issuedAt + 5,
    linksFound: 0,
    bytes: 100,
    ...extra,
  });

  const source = FrontierStore.open(":memory:", { journal: true });
  const a = frontierOver(source);
  await a.addSeeds([{ url: "http://a.test/x", host: "a.test", depth: 0, redirectHops: 0 }]);
  const robots = next(a);
  await a.complete(
    answer(robots, { robots: { verdict: "parse", text: "Sitemap: http://a.test/one.xml\nSitemap: http://a.test/two.xml\n" } }),
    [],
  );
  const one = next(a);
  expect(one.url).toBe("http://a.test/one.xml");
  await a.complete(answer(one, { sitemap: { format: "urlset", entries: 0, outOfLocation: 0, invalid: 0 } }), []);
  expect(a.sitemapsPending).toBe(1);
  const p = one.partition;

  // The rows of the partition, replayed onto an empty store (as a rebuild from the replica's log does).
  const copy = FrontierStore.open(":memory:", { journal: true });
  for (const r of source.journal!.rows(p, 0, 100)) applyChanges(copy, p, JSON.parse(r.body));
  expect(copy.sitemaps.forHost(p, "a.test")).toEqual(source.sitemaps.forHost(p, "a.test"));
  expect(copy.sitemaps.pendingFor(p, "a.test")).toBe(1);
  expect(copy.scopeRoots.inPartition(p)).toEqual(["a.test"]);

  // A frontier over the copy reads the sitemap still pending (not the one read), then the host's page, and
  // keeps the seed's scope: a link to another host is refused.
  const b = frontierOver(copy);
  expect(b.sitemapsPending).toBe(1);
  const two = next(b);
  expect(`${two.kind} ${two.url}`).toBe("sitemap http://a.test/two.xml");
  await b.complete(answer(two, { sitemap: { format: "urlset", entries: 0, outOfLocation: 0, invalid: 0 } }), []);
  expect(b.sitemapsPending).toBe(0);
  const page = next(b);
  expect(`${page.kind} ${page.url}`).toBe("page http://a.test/x");
  await b.complete(answer(page), [{ url: "http://b.test/", host: "b.test", depth: 1, redirectHops: 0 }]);
  expect(copy.totalQueued()).toBe(0);
  expect(b.counters.get("admission.rejected.scope")).toBe(1);
});

test("journal - sitemap and scope root changes are checked like the others", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  expect(() => applyChanges(store, 1, [["sm", "a.test", "http://a.test/s.xml", "not a list", 0, 0, 0, "pending", 1, 0]])).toThrow(
    BadChangeBatchError,
  );
  expect(() => applyChanges(store, 1, [["sm", "a.test", "http://a.test/s.xml", [], 0, 0, 0, "lost", 1, 0]])).toThrow(BadChangeBatchError);
  expect(() => applyChanges(store, 1, [["sr", 7]])).toThrow(BadChangeBatchError);
  expect(store.sitemaps.pendingTotal()).toBe(0);
  expect(store.scopeRoots.list()).toEqual([]);
});

test("journal - a media file's queue and schedule rows are journaled with their kind: a copy rebuilt from the rows keeps them media", () => {
  const source = FrontierStore.open(":memory:", { journal: true });
  const p = 6;
  source.tx(() => {
    source.enqueue(q(p, "http://a.test/page"));
    source.enqueue({ ...q(p, "http://a.test/q.jpg"), priority: 3, kind: "media" });
    source.schedule({ partition: p, url: "http://a.test/s.mp4", host: "a.test", priority: 3, depth: 1, dueAt: 50, kind: "media" });
    source.schedule({ partition: p, url: "http://a.test/later", host: "a.test", priority: 2, depth: 1, dueAt: 60, kind: "page" });
  });
  const changes = source.journal!.rows(p, 0, 10).flatMap((r) => JSON.parse(r.body) as unknown[][]);
  // A page's change keeps the shape journals had before URL kinds; a media file's ends with its kind.
  expect(changes.map((c) => c.length)).toEqual([7, 8, 7, 6]);
  const copy = FrontierStore.open(":memory:");
  applyChanges(copy, p, changes);
  expect(copy.queuedInPartition(p, undefined, 10).map((x) => [x.url, x.kind])).toEqual([
    ["http://a.test/page", "page"],
    ["http://a.test/q.jpg", "media"],
  ]);
  expect(copy.takeDue(100, 10).map((s) => [s.url, s.kind])).toEqual([
    ["http://a.test/s.mp4", "media"],
    ["http://a.test/later", "page"],
  ]);
});

test("journal - a queue or schedule change with a kind other than media is refused", () => {
  const store = FrontierStore.open(":memory:");
  expect(() => applyChanges(store, 1, [["q", "a.test", 2, 1, "http://a.test/", 0, 0, "video"]])).toThrow(BadChangeBatchError);
  expect(() => applyChanges(store, 1, [["s", "http://a.test/", "a.test", 2, 0, 5, 1]])).toThrow(BadChangeBatchError);
  expect(() => applyChanges(store, 1, [["q", "a.test", 2, 1, "http://a.test/", 0, 0, "media", "x"]])).toThrow(BadChangeBatchError);
  expect(store.totalQueued()).toBe(0);
});
