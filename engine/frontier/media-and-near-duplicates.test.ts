/**
 * What the frontier does with media URLs and with the links of near-duplicate pages: media are admitted only
 * with --fetch-media, as URLs of their own kind at the lowest priority, handed out as media tasks under the
 * host's politeness and robots.txt; page tasks ask for media exactly when the policy does; a media file that
 * redirects stays a media file; links found on a near duplicate wait behind every other page of their host.
 * Also: a store written before URL kinds existed (schema 3) opens, its queue intact.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { exportPartition, importChunk } from "./handoff.ts";
import { FrontierStore } from "./store/frontier-store.ts";
import { SCHEMA_VERSION } from "./store/schema.ts";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

function setup(policy: Partial<PolicyConfig> = {}) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    // The /sitemap.xml probe (the default) is one more task per host; sitemaps.test.ts covers it. These tests step through pages.
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, sitemaps: "robots", ...policy },
    partitions: 16,
    maxQueued: 1_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock };
}

function link(url: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl {
  return { url, host: hostKeyOf(url), depth: 1, redirectHops: 0, ...extra };
}

function answer(task: FetchTask, at: number, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: at,
    endedAt: at,
    linksFound: 0,
    bytes: 10,
    ...extra,
  };
}

/** Fetches the host's tasks one at a time, answering each with `links[url]`, and returns the URLs in order. */
async function crawlHost(
  frontier: Frontier,
  clock: { now: number },
  answers: (task: FetchTask) => { extra?: Partial<ResponseResult>; links?: DiscoveredUrl[] } = () => ({}),
): Promise<FetchTask[]> {
  const done: FetchTask[] = [];
  for (let i = 0; i < 100; i++) {
    clock.now += 10;
    const [task] = frontier.nextTasks(1);
    if (!task) {
      if (frontier.queued === 0) break;
      continue;
    }
    const { extra, links = [] } = task.kind === "robots" ? { extra: { robots: { verdict: "allow-all" as const } } } : answers(task);
    await frontier.complete(answer(task, clock.now, extra), links);
    if (task.kind !== "robots") done.push(task);
  }
  return done;
}

describe("frontier: media", () => {
  test("frontier media - without --fetch-media a media URL is not admitted, and page tasks do not ask for media", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawlHost(frontier, clock, () => ({ links: [link("http://a.test/a.jpg", { kind: "media" })] }));
    expect(tasks.map((t) => [t.kind, t.url, t.fetchMedia])).toEqual([["page", "http://a.test/", undefined]]);
    expect(frontier.counters.get("admission.rejected.fetch-media-off")).toBe(1);
  });

  test("frontier media - with --fetch-media page tasks ask for media, and media come as media tasks after every page of the host", async () => {
    const { frontier, clock } = setup({ fetchMedia: true });
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawlHost(frontier, clock, (t) =>
      t.url === "http://a.test/"
        ? {
            links: [
              link("http://a.test/a.jpg", { kind: "media" }),
              link("http://a.test/p1"),
              link("http://a.test/b.mp4", { kind: "media" }),
              link("http://a.test/p2"),
            ],
          }
        : {},
    );
    expect(tasks.map((t) => [t.kind, t.url])).toEqual([
      ["page", "http://a.test/"],
      ["page", "http://a.test/p1"],
      ["page", "http://a.test/p2"],
      ["media", "http://a.test/a.jpg"],
      ["media", "http://a.test/b.mp4"],
    ]);
    expect(tasks.filter((t) => t.kind === "page").every((t) => t.fetchMedia === true)).toBe(true);
    expect(tasks.filter((t) => t.kind === "media").every((t) => t.fetchMedia === undefined)).toBe(true);
    expect(frontier.counters.get("fetch.media")).toBe(2);
  });

  test("frontier media - robots.txt rules apply to media as to pages", async () => {
    const { frontier, clock } = setup({ fetchMedia: true });
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      clock.now += 10;
      const [task] = frontier.nextTasks(1);
      if (!task) break;
      if (task.kind === "robots") {
        await frontier.complete(
          answer(task, clock.now, { robots: { verdict: "parse", text: "User-agent: *\nDisallow: /private/\n" } }),
          [],
        );
        continue;
      }
      seen.push(task.url);
      const links =
        task.url === "http://a.test/"
          ? [link("http://a.test/private/x.jpg", { kind: "media" }), link("http://a.test/ok.jpg", { kind: "media" })]
          : [];
      await frontier.complete(answer(task, clock.now), links);
    }
    expect(seen).toEqual(["http://a.test/", "http://a.test/ok.jpg"]);
    expect(frontier.counters.get("robots.disallowed")).toBe(1);
  });

  test("frontier media - a media file that redirects is a media file at its new address", async () => {
    const { frontier, clock } = setup({ fetchMedia: true });
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawlHost(frontier, clock, (t) => {
      if (t.url === "http://a.test/") return { links: [link("http://a.test/old.jpg", { kind: "media" })] };
      if (t.url === "http://a.test/old.jpg") return { extra: { status: 301, redirectTo: "http://a.test/new.jpg" } };
      return {};
    });
    expect(tasks.map((t) => [t.kind, t.url])).toEqual([
      ["page", "http://a.test/"],
      ["media", "http://a.test/old.jpg"],
      ["media", "http://a.test/new.jpg"],
    ]);
  });
});

describe("frontier: near duplicates", () => {
  test("frontier near duplicates - links found on a near duplicate wait behind the host's other pages", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawlHost(frontier, clock, (t) => {
      switch (t.url) {
        case "http://a.test/":
          return { links: [link("http://a.test/orig"), link("http://a.test/near"), link("http://a.test/later")] };
        case "http://a.test/orig":
          return { links: ["/o1", "/o2"].map((p) => link(`http://a.test${p}`, { depth: 2 })) };
        case "http://a.test/near":
          return {
            extra: { nearDuplicateOf: "http://a.test/orig" },
            links: ["/n1", "/n2", "/"].map((p) => link(`http://a.test${p}`, { depth: 2, foundOnNearDuplicate: true })),
          };
        case "http://a.test/later":
          return { links: ["/l1", "/l2"].map((p) => link(`http://a.test${p}`, { depth: 2 })) };
        default:
          return {};
      }
    });
    expect(tasks.map((t) => new URL(t.url).pathname)).toEqual(["/", "/orig", "/near", "/later", "/o1", "/o2", "/l1", "/l2", "/n1", "/n2"]);
    expect(frontier.counters.get("content.near-duplicates")).toBe(1);
  });
});

describe("frontier store: URL kinds", () => {
  test("frontier store - a partition handed to another node keeps the kind of its queued and scheduled URLs", () => {
    const from = FrontierStore.open(":memory:");
    from.tx(() => {
      from.enqueue({ partition: 3, host: "a.test", priority: 3, url: "http://a.test/q.jpg", depth: 1, hops: 0, kind: "media" });
      from.enqueue({ partition: 3, host: "a.test", priority: 2, url: "http://a.test/page", depth: 1, hops: 0, kind: "page" });
      from.recordFetch({
        partition: 3,
        url: "http://a.test/s.jpg",
        host: "a.test",
        state: "fetched",
        depth: 1,
        failures: 0,
        lastStatus: 200,
        lastFetchedAt: 1,
        refetchMs: 10,
        etag: null,
        lastModified: null,
        fingerprint: "f",
        simhash: null,
        changedLastVisit: false,
        note: null,
      });
      from.schedule({ partition: 3, url: "http://a.test/s.jpg", host: "a.test", priority: 3, depth: 1, dueAt: 5, kind: "media" });
    });
    const to = FrontierStore.open(":memory:");
    for (const chunk of exportPartition(from, 3)) importChunk(to, JSON.parse(JSON.stringify(chunk)));
    expect(to.queuedInPartition(3, undefined, 10).map((q) => [q.url, q.kind])).toEqual([
      ["http://a.test/page", "page"],
      ["http://a.test/q.jpg", "media"],
    ]);
    expect(to.takeDue(10, 10).map((s) => [s.url, s.kind])).toEqual([["http://a.test/s.jpg", "media"]]);
  });

  test("frontier store - a store of schema 3 (before URL kinds) opens, its queued URLs pages, and takes media after", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-v3-"));
    try {
      const path = join(dir, "frontier.sqlite");
      const old = new Database(path, { create: true });
      old.exec(`CREATE TABLE queue (partition INTEGER NOT NULL, host TEXT NOT NULL, priority INTEGER NOT NULL, seq INTEGER NOT NULL,
        url TEXT NOT NULL, depth INTEGER NOT NULL, hops INTEGER NOT NULL, PRIMARY KEY (partition, host, priority, seq)) WITHOUT ROWID;
        CREATE TABLE scheduled (partition INTEGER NOT NULL, url TEXT NOT NULL, host TEXT NOT NULL, priority INTEGER NOT NULL,
        depth INTEGER NOT NULL, due_at INTEGER NOT NULL, PRIMARY KEY (partition, url)) WITHOUT ROWID;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO meta VALUES ('schema', '3');
        INSERT INTO queue VALUES (1, 'a.test', 2, 1, 'http://a.test/old', 1, 0);
        INSERT INTO scheduled VALUES (1, 'http://a.test/later', 'a.test', 2, 1, 5);`);
      old.close();
      const store = FrontierStore.open(path);
      expect(store.head(1, "a.test")).toMatchObject({ url: "http://a.test/old", kind: "page" });
      expect(store.takeDue(10, 10)).toEqual([expect.objectContaining({ url: "http://a.test/later", kind: "page" })]);
      store.enqueue({ partition: 1, host: "a.test", priority: 1, url: "http://a.test/x.jpg", depth: 1, hops: 0, kind: "media" });
      expect(store.head(1, "a.test")).toMatchObject({ url: "http://a.test/x.jpg", kind: "media" });
      store.close();
      expect(FrontierStore.open(path).getMeta("schema")).toBe(String(SCHEMA_VERSION));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
