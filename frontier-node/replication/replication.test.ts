/**
 * Replicated partition state, end to end inside one process: frontier nodes over the in-process bus,
 * cluster state and partition replica (the same code the NATS adapters run under), a fake fetch node,
 * and a seen-set shared by the nodes as a region's Redis would be. A node "lost with its disk" is crashed
 * (nothing given back, nothing flushed) and its store thrown away; a node "restarted with its disk"
 * reopens the same SQLite file.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet, MemoryPartitionReplica } from "../../adapters/memory/index.ts";
import type { DiscoveredUrl, FetchTask } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { exportPartition, FrontierStore } from "../../engine/frontier/index.ts";
import type { FrontierNode } from "../node/frontier-node.ts";
import { discovered, type FakeFetcher, publishUrls, REGION, ringOf, TestBed, waitFor, writeRing } from "../node/testing.ts";
import { maxOf } from "../../core/stats/index.ts";

const P = 8;
const HOSTS = Array.from({ length: 12 }, (_, i) => `h${i}.test`);
const home = (h: string) => `http://${h}/`;
const PAGES = (h: string) => [1, 2, 3, 4, 5].map((i) => `http://${h}/p${i}`);
const EXPECTED = HOSTS.flatMap((h) => [home(h), ...PAGES(h)]).sort();
/** Short fetch timeouts: a restored host waits until a fetch started before the loss must have ended. */
const POLICY = { "min-gap": "0", "connect-timeout": "100ms", "response-timeout": "200ms", "fetch-lease": "1s" };

let bed: TestBed | undefined;
const dirs: string[] = [];
/** Opens the gate of the test's held fetches (so a failed test's teardown does not wait for them). */
let openGate = () => {};

afterEach(async () => {
  openGate();
  await bed?.close();
  bed = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "replication-test-"));
  dirs.push(d);
  return d;
}

/** A fetcher whose pages other than home pages wait for a gate (so a crash finds them queued and in flight). */
function gatedFetcher(b: TestBed): { fetcher: FakeFetcher; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  openGate = open;
  const fetcher = b.fetcher({
    links: (url) => (url.endsWith("/") ? PAGES(new URL(url).host) : []),
    hold: (task) => (task.kind === "page" && !task.url.endsWith("/") ? gate : undefined),
  });
  return { fetcher, open };
}

/** Page tasks other than home pages the fetcher holds. */
function held(f: FakeFetcher): Set<string> {
  return new Set(f.tasks.filter((t) => t.kind === "page" && !t.url.endsWith("/")).map((t) => t.url));
}

function fetchedPages(f: FakeFetcher): Map<string, number> {
  const counts = new Map<string, number>();
  for (const url of f.pages()) counts.set(url, (counts.get(url) ?? 0) + 1);
  return counts;
}

/** Everything a store holds of a partition, in a comparable form. */
function contents(store: FrontierStore, p: number): string {
  const out: string[] = [];
  for (const chunk of exportPartition(store, p)) {
    for (const item of chunk.queued.map((q) => `q ${q.host} ${q.priority} ${q.seq} ${q.url}`)) out.push(item);
    for (const item of chunk.urls.map((u) => `u ${u.url} ${u.stateJson}`)) out.push(item);
    for (const item of chunk.hosts.map((h) => `h ${h.host} ${h.stateJson} ${h.robotsJson} ${h.sitemapsJson}`)) out.push(item);
    for (const item of (chunk.scopeRoots ?? []).map((r) => `r ${r}`)) out.push(item);
  }
  return out.sort().join("\n");
}

/** Waits until the node's journal has sent everything to the replica. */
async function drained(store: FrontierStore): Promise<void> {
  await waitFor(() => store.journal!.backlog().rows === 0, "the journal to be sent to the replica");
}

/**
 * Queues every host's home page and pages on node a and waits until each host's robots.txt is applied and
 * every URL waits in its queue (the policy's gap keeps them there). Returns the URLs.
 */
async function queueBehindRobots(bed: TestBed, fetcher: FakeFetcher, a: FrontierNode): Promise<string[]> {
  const urls = HOSTS.flatMap((h) => [home(h), ...PAGES(h)]);
  await publishUrls(bed.bus, P, discovered(urls));
  await waitFor(
    () =>
      fetcher.tasks.filter((t) => t.kind === "robots").length === HOSTS.length &&
      a.frontier.inFlight === 0 &&
      a.frontier.snapshot().queued === urls.length,
    "every host's robots.txt to be applied",
  );
  return urls;
}

async function startA(
  b: TestBed,
  replica: MemoryPartitionReplica,
  seen: LocalBloomSeenSet,
  store: FrontierStore,
  policy: Record<string, string> = POLICY,
): Promise<FrontierNode> {
  await writeRing(
    b.state,
    ringOf(P, () => "a"),
  );
  const a = await b.node("a", { store, replica, seen, policy });
  await waitFor(() => a.serving.length === P, "a to serve every partition");
  return a;
}

/**
 * Node a lost with its disk after partition `snapshotted` was snapshotted (later rows stay in the log; the
 * other partitions have their log alone), and node b, on a new store, given every partition: b rebuilds
 * them from the replica.
 */
async function loseAToB(
  b: TestBed,
  a: FrontierNode,
  storeA: FrontierStore,
  snapshotted: number,
  deps: { replica: MemoryPartitionReplica; seen: LocalBloomSeenSet; policy: Record<string, string> },
): Promise<{ b: FrontierNode; storeB: FrontierStore }> {
  await drained(storeA);
  await a.snapshot(snapshotted);
  expect(await deps.replica.getSnapshot(REGION, snapshotted)).toBeDefined();
  await drained(storeA);
  await a.crash();
  const storeB = FrontierStore.open(":memory:", { journal: true });
  const nodeB = await b.node("b", { store: storeB, ...deps });
  await writeRing(
    b.state,
    ringOf(
      P,
      () => "b",
      () => "",
      2,
    ),
  );
  await waitFor(() => nodeB.serving.length === P, "b to serve every partition, rebuilt from the replica");
  return { b: nodeB, storeB };
}

test("replication - a frontier node lost with its disk: the new owner rebuilds every partition, no queued URL is lost, only what was in flight is fetched twice", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const { fetcher, open } = gatedFetcher(bed);
  const storeA = FrontierStore.open(":memory:", { journal: true });
  const a = await startA(bed, replica, seen, storeA);
  await publishUrls(bed.bus, P, discovered(HOSTS.map(home), true));
  // Every home page fetched, its links queued, and one more page per host in flight (held at the fetcher).
  await waitFor(
    () => held(fetcher).size === HOSTS.length && a.frontier.snapshot().queued === HOSTS.length * 5,
    "a queue and a fetch per host",
  );
  await drained(storeA);
  const inFlight = held(fetcher);

  await a.crash(); // kill -9: its disk is gone with it (storeA is never read again)
  const b = await bed.node("b", { store: FrontierStore.open(":memory:", { journal: true }), replica, seen, policy: POLICY });
  await writeRing(
    bed.state,
    ringOf(
      P,
      () => "b",
      () => "",
      2,
    ),
  );
  await waitFor(() => b.serving.length === P, "b to serve every partition, rebuilt from the replica");
  expect(b.frontier.snapshot().queued).toBe(HOSTS.length * 5);
  open(); // a's fetches end now: their results reach b as stale results
  await waitFor(() => EXPECTED.every((u) => fetchedPages(fetcher).has(u)), "every expected page to be fetched", 15_000);
  await waitFor(() => b.frontier.inFlight === 0 && b.frontier.snapshot().queued === 0, "b to be idle");

  const counts = fetchedPages(fetcher);
  expect([...counts.keys()].sort()).toEqual(EXPECTED);
  const twice = [...counts].filter(([, n]) => n > 1).map(([u]) => u);
  for (const url of twice) expect(inFlight.has(url)).toBe(true);
  expect(maxOf(counts.values())).toBeLessThanOrEqual(2);
  // robots.txt was fetched once per host: the verdicts came back with the partitions.
  expect(fetcher.tasks.filter((t) => t.kind === "robots").length).toBe(HOSTS.length);
  const nodeB = (await bed.state.listNodes()).find((n) => n.id === "b")!;
  expect(nodeB.counters["replication.partitions.restored"]).toBe(P);
}, 30_000);

test("replication - URLs admitted while the replica is down are acked only once stored: a node lost meanwhile loses none of them", async () => {
  bed = new TestBed(P, { ackWaitMs: 300 });
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const fetcher = bed.fetcher({ answer: (t: FetchTask) => t.kind === "robots" || t.url.endsWith("/"), links: () => [] });
  const storeA = FrontierStore.open(":memory:", { journal: true });
  const a = await startA(bed, replica, seen, storeA);
  await publishUrls(bed.bus, P, discovered(HOSTS.map(home), true));
  await waitFor(() => fetcher.pages().length === HOSTS.length && a.frontier.inFlight === 0, "the home pages");
  await drained(storeA);

  replica.failWith = new Error("replica down");
  const late = HOSTS.flatMap(PAGES);
  await publishUrls(bed.bus, P, discovered(late));
  await waitFor(() => (a.frontier.counters.toJSON()["node.urls.received"] ?? 0) >= HOSTS.length + late.length, "a to admit the late URLs");
  expect(storeA.journal!.backlog().rows).toBeGreaterThan(0);
  await a.crash();
  replica.failWith = undefined;

  const b = await bed.node("b", { store: FrontierStore.open(":memory:", { journal: true }), replica, seen, policy: POLICY });
  await writeRing(
    bed.state,
    ringOf(
      P,
      () => "b",
      () => "",
      2,
    ),
  );
  // The URL messages a acked never: they come again, and b (which never saw them) admits them although the
  // shared seen-set says "maybe seen".
  await waitFor(() => b.frontier.snapshot().queued === late.length || b.frontier.inFlight > 0, "b to admit the redelivered URLs", 10_000);
  const counters = b.frontier.counters.toJSON();
  expect(counters["frontier.admitted"]).toBe(late.length);
}, 30_000);

test("replication - a node restarted with its own disk continues from it: nothing rolled back, nothing applied twice", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const { fetcher, open } = gatedFetcher(bed);
  const path = join(tempDir(), "frontier.sqlite");
  const storeA = FrontierStore.open(path, { journal: true });
  const a = await startA(bed, replica, seen, storeA);
  await publishUrls(bed.bus, P, discovered(HOSTS.map(home), true));
  await waitFor(
    () => held(fetcher).size === HOSTS.length && a.frontier.snapshot().queued === HOSTS.length * 5,
    "a queue and a fetch per host",
  );
  await drained(storeA);
  await a.snapshot(0); // one partition has a snapshot, the others only their log
  await a.crash();
  storeA.close();
  const appendedBefore = replica.appended;

  // Restarted with its disk, the ring unchanged: every partition continues from the local rows.
  const reopened = FrontierStore.open(path, { journal: true });
  const a2 = await bed.node("a", { store: reopened, replica, seen, policy: POLICY });
  await waitFor(() => a2.serving.length === P, "the restarted node to serve every partition");
  const rec = (await bed.state.listNodes()).find((n) => n.id === "a")!;
  await waitFor(
    async () => ((await bed!.state.listNodes()).find((n) => n.id === "a")?.counters["replication.partitions.continued"] ?? 0) === P,
    "every partition continued",
  );
  expect(rec.counters["replication.partitions.restored"] ?? 0).toBe(0);
  expect(replica.appended).toBe(appendedBefore); // no claim, no re-sent rows
  open();
  await waitFor(() => EXPECTED.every((u) => fetchedPages(fetcher).has(u)), "every expected page to be fetched", 15_000);
  await waitFor(() => a2.frontier.inFlight === 0 && a2.frontier.snapshot().queued === 0, "the node to be idle");
  await drained(reopened);

  // What the replica holds is exactly the restarted node's store, row for row: a fresh node rebuilding from it
  // (snapshot + log of the first run + log of the second) ends with the same rows.
  await a2.crash();
  const cStore = FrontierStore.open(":memory:", { journal: true });
  const c = await bed.node("c", { store: cStore, replica, seen, policy: POLICY });
  await writeRing(
    bed.state,
    ringOf(
      P,
      () => "c",
      () => "",
      3,
    ),
  );
  await waitFor(() => c.serving.length === P, "c to rebuild every partition");
  for (let p = 0; p < P; p++) expect(contents(cStore, p)).toBe(contents(reopened, p));
}, 30_000);

test("replication - a partition handed over between live nodes is claimed by the receiver, and survives the receiver's loss whole", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  // After its robots.txt every host waits an hour: the queued URLs stay put while partitions move.
  const slow = { ...POLICY, "min-gap": "1h", "max-gap": "2h" };
  const fetcher = bed.fetcher();
  const storeA = FrontierStore.open(":memory:", { journal: true });
  await writeRing(
    bed.state,
    ringOf(P, () => "a"),
  );
  const a = await bed.node("a", { store: storeA, replica, seen, policy: slow });
  await waitFor(() => a.serving.length === P, "a to serve every partition");
  const urls = await queueBehindRobots(bed, fetcher, a);

  const storeB = FrontierStore.open(":memory:", { journal: true });
  const b = await bed.node("b", { store: storeB, replica, seen, policy: slow });
  const moved = (p: number) => p % 2 === 1;
  await writeRing(
    bed.state,
    ringOf(
      P,
      (p) => (moved(p) ? "b" : "a"),
      (p) => (moved(p) ? "a" : ""),
      2,
    ),
  );
  await waitFor(() => b.serving.length === P / 2 && a.pending.handOff.length === 0, "the handoffs to complete");
  await waitFor(
    async () => ((await bed!.state.listNodes()).find((n) => n.id === "b")?.counters["replication.partitions.claimed"] ?? 0) === P / 2,
    "b to claim the partitions it received",
  );
  await drained(storeB);

  await b.crash();
  const storeC = FrontierStore.open(":memory:", { journal: true });
  const c = await bed.node("c", { store: storeC, replica, seen, policy: slow });
  await writeRing(
    bed.state,
    ringOf(
      P,
      (p) => (moved(p) ? "c" : "a"),
      () => "",
      3,
    ),
  );
  await waitFor(() => c.serving.length === P / 2, "c to rebuild b's partitions");
  for (let p = 1; p < P; p += 2) {
    expect(contents(storeC, p)).toBe(contents(storeB, p));
    expect(contents(storeC, p)).not.toBe("");
  }
  expect(c.frontier.snapshot().queued + a.frontier.snapshot().queued).toBe(urls.length);
}, 30_000);

test("replication - a partition's pending sitemaps and its seeds' scope roots survive a rebuild from the replica (snapshot and log)", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const hosts = HOSTS.slice(0, 4);
  const sitemapsOf = (h: string) => [`http://${h}/one.xml`, `http://${h}/two.xml`];
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  openGate = open;
  // Sitemap tasks of a wait at the gate: each host's first sitemap is in flight when a is lost, its second pending.
  const fetcher = bed.fetcher({ hold: (task) => (task.kind === "sitemap" && task.taskId.startsWith("a-") ? gate : undefined) });
  const policy = { ...POLICY, scope: "host" };
  const storeA = FrontierStore.open(":memory:", { journal: true });
  const a = await startA(bed, replica, seen, storeA, policy);
  const refs = hosts.flatMap((h) =>
    sitemapsOf(h).map((url) => ({ url, host: h, depth: 0, redirectHops: 0, sitemap: { grants: [`http://${h}/`] } })),
  );
  await publishUrls(bed.bus, P, [...discovered(hosts.map(home), true), ...refs]);
  const sitemapTasks = (node: string) => fetcher.tasks.filter((t) => t.kind === "sitemap" && t.taskId.startsWith(`${node}-`));
  await waitFor(
    () => sitemapTasks("a").length === hosts.length && a.frontier.sitemapsPending === 2 * hosts.length,
    "each host's first sitemap in flight, its second pending",
  );
  const { b, storeB } = await loseAToB(bed, a, storeA, sitemapTasks("a")[0]!.partition, { replica, seen, policy });
  for (const h of hosts) {
    const p = sitemapTasks("a").find((t) => t.host === h)!.partition;
    expect(storeB.sitemaps.pendingFor(p, h)).toBe(2);
    // The root came back with its seed's partition (what b heard from the cluster state is no partition's).
    expect(storeB.scopeRoots.inPartition(p)).toContain(h);
  }
  expect(b.frontier.sitemapsPending).toBe(2 * hosts.length);
  open();
  await waitFor(() => b.frontier.sitemapsPending === 0 && b.frontier.inFlight === 0, "b to read every sitemap");
  // b read both sitemaps of every host (the one a had in flight again, the pending one for the first time);
  // robots.txt was not fetched again.
  expect(
    sitemapTasks("b")
      .map((t) => t.url)
      .sort(),
  ).toEqual(hosts.flatMap(sitemapsOf).sort());
  expect(fetcher.tasks.filter((t) => t.kind === "robots").length).toBe(hosts.length);
}, 30_000);

test("replication - a media URL queued on a node lost with its disk is still a media URL after the rebuild from the replica (snapshot and log), and a media result of the lost node is adopted as one", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const hosts = HOSTS.slice(0, 4);
  const mediaOf = (h: string) => [`http://${h}/a.jpg`, `http://${h}/b.mp4`];
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  openGate = open;
  // Media tasks of a wait at the gate: each host's first media file is in flight when a is lost, its second queued.
  const fetcher = bed.fetcher({ hold: (task) => (task.kind === "media" && task.taskId.startsWith("a-") ? gate : undefined) });
  const policy = { ...POLICY, "fetch-media": "true" };
  const storeA = FrontierStore.open(":memory:", { journal: true });
  const a = await startA(bed, replica, seen, storeA, policy);
  const media = hosts.flatMap((h) =>
    mediaOf(h).map((url): DiscoveredUrl => ({ url, host: h, depth: 1, redirectHops: 0, sourceUrl: home(h), kind: "media" })),
  );
  await publishUrls(bed.bus, P, [...discovered(hosts.map(home), true), ...media]);
  const tasksOf = (node: string, kind: FetchTask["kind"]) =>
    fetcher.tasks.filter((t) => t.kind === kind && t.taskId.startsWith(`${node}-`));
  await waitFor(
    () => tasksOf("a", "media").length === hosts.length && tasksOf("a", "page").length === hosts.length,
    "each host's home page fetched and its first media file in flight",
  );
  const { b, storeB } = await loseAToB(bed, a, storeA, tasksOf("a", "media")[0]!.partition, { replica, seen, policy });
  for (const h of hosts) {
    const p = tasksOf("a", "media").find((t) => t.host === h)!.partition;
    const queued = storeB.queuedInPartition(p, undefined, 100).filter((q) => q.host === h);
    expect(queued.map((q) => [q.url, q.kind])).toEqual(mediaOf(h).map((url) => [url, "media"]));
  }
  open();
  // The media files a had in flight are answered now: their results reach b, which adopts them (results.ts:
  // the URL at the head of an idle host); b fetches the queued ones.
  const adopted = () => b.frontier.counters.toJSON()["frontier.results-adopted"] ?? 0;
  await waitFor(
    () => tasksOf("b", "media").length === hosts.length && adopted() === hosts.length && b.frontier.inFlight === 0,
    "b to adopt a's media results and fetch the rest",
  );
  // Each media file was fetched once, as a media task: the first by a (its result adopted by b), the second
  // by b; no page either: the home pages a fetched are not asked again, the media not as pages.
  expect(
    tasksOf("b", "media")
      .map((t) => t.url)
      .sort(),
  ).toEqual(hosts.map((h) => mediaOf(h)[1]!).sort());
  for (const h of hosts) expect(b.frontier.explainUrl(mediaOf(h)[0]!, h).state).toBe("fetched");
  expect(tasksOf("b", "page")).toEqual([]);
}, 30_000);

test("replication - a ring naming the giver again after its handoff (a ring write undone): the giver, holding no copy, streams nothing and clears the mark; the receiver keeps its rows", async () => {
  // nats-server 2.9.10 could store a coordinator's ring over a receiver's handoff mark made from the same
  // revision: the giver, named `previous` again, streamed what it still had of the partition (nothing), and
  // the receiver replaced its rows with that: its hosts were gone ("this node knows nothing about host").
  bed = new TestBed(P);
  await bed.ensureRegion();
  const replica = new MemoryPartitionReplica();
  const seen = LocalBloomSeenSet.open(undefined, 10_000);
  const slow = { ...POLICY, "min-gap": "1h", "max-gap": "2h" };
  const fetcher = bed.fetcher();
  const storeA = FrontierStore.open(":memory:", { journal: true });
  const a = await startA(bed, replica, seen, storeA, slow);
  const urls = await queueBehindRobots(bed, fetcher, a);
  const storeB = FrontierStore.open(":memory:", { journal: true });
  const b = await bed.node("b", { store: storeB, replica, seen, policy: slow });
  const moved = (p: number) => p % 2 === 1;
  const handoffRing = ringOf(
    P,
    (p) => (moved(p) ? "b" : "a"),
    (p) => (moved(p) ? "a" : ""),
    2,
  );
  await writeRing(bed.state, handoffRing);
  await waitFor(() => b.serving.length === P / 2 && a.pending.handOff.length === 0, "the handoffs to complete");
  await drained(storeB);
  const received = new Map<number, string>();
  for (let p = 1; p < P; p += 2) received.set(p, contents(storeB, p));
  expect([...received.values()].filter((c) => c !== "")).toHaveLength(P / 2);

  // The handoff marks undone: the ring names a as `previous` of the moved partitions again.
  await writeRing(bed.state, handoffRing);
  await waitFor(async () => {
    const ring = (await bed!.state.getRing())!.ring;
    return ring.regions.r1!.previous.every((prev) => prev === "") && b.serving.length === P / 2 && a.pending.handOff.length === 0;
  }, "a to clear the marks and b to serve its partitions again");
  for (let p = 1; p < P; p += 2) expect(contents(storeB, p)).toBe(received.get(p)!);
  expect(b.frontier.snapshot().queued + a.frontier.snapshot().queued).toBe(urls.length);
  // Each host's owner knows it (what the admin API's host view asks).
  const unknown = HOSTS.filter((h) => (moved(partitionOf(h, P)) ? b : a).frontier.hostInfo(h) === undefined);
  expect(unknown).toEqual([]);
  await waitFor(
    async () => ((await bed!.state.listNodes()).find((n) => n.id === "a")?.counters["handoff.not-held"] ?? 0) === P / 2,
    "a to count the partitions it did not hold",
  );
}, 30_000);
