import { afterEach, expect, test } from "bun:test";
import { credentials } from "@grpc/grpc-js";
import { HealthCheckResponse_ServingStatus as Status, HealthClient } from "../../proto/gen/grpc/health/v1/health.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { FrontierStore } from "../../engine/frontier/index.ts";
import { MemoryFetchClaims } from "../../adapters/memory/index.ts";
import { discovered, publishUrls, REGION, ringOf, TestBed, waitFor, writeRing } from "./testing.ts";

const P = 8;
const FRONTIER = "crawler.frontier.v1.FrontierService";
let bed: TestBed;

afterEach(async () => {
  await bed.close();
});

const LINKS: Record<string, string[]> = {
  "http://h0.test/": ["http://h0.test/a", "http://h1.test/b", "http://h2.test/"],
  "http://h1.test/": ["http://h0.test/a"],
  "http://h2.test/": ["http://h2.test/c"],
};

test("frontier node - publishes tasks for queued seeds, applies the results published back and admits links from the urls stream", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  let maxInFlight = 0;
  const node = await bed.node("n1", { credit: 2 });
  const fetcher = bed.fetcher({
    links: (url) => LINKS[url] ?? [],
    onTask: () => (maxInFlight = Math.max(maxInFlight, node.frontier.inFlight)),
  });
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");

  await publishUrls(bed.bus, P, discovered(["http://h0.test/", "http://h1.test/"], true));

  const expected = ["http://h0.test/", "http://h0.test/a", "http://h1.test/", "http://h1.test/b", "http://h2.test/", "http://h2.test/c"];
  await waitFor(() => fetcher.pages().length >= expected.length && node.frontier.inFlight === 0, "every page to be fetched and applied");
  expect(fetcher.pages().sort()).toEqual(expected);
  expect(
    fetcher.tasks
      .filter((t) => t.kind === "robots")
      .map((t) => t.url)
      .sort(),
  ).toEqual(["http://h0.test/robots.txt", "http://h1.test/robots.txt", "http://h2.test/robots.txt"]);
  expect(maxInFlight).toBeLessThanOrEqual(2);
  for (const url of expected) expect(node.frontier.explainUrl(url, new URL(url).host).state).toBe("fetched");
  expect(node.frontier.snapshot().queued).toBe(0);

  await waitFor(
    async () => ((await bed.state.listNodes()).find((n) => n.id === "n1")?.counters["node.results.received"] ?? 0) >= 9,
    "the heartbeat to report the results",
  );
  const record = (await bed.state.listNodes()).find((n) => n.id === "n1")!;
  expect(record).toMatchObject({ role: "frontier", region: REGION, status: "active", grpcAddress: node.grpcAddress });
  expect(record.partitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(record.counters["node.tasks.published"]).toBe(9);
  expect(record.gauges["inFlight"]).toBe(0);
});

test("frontier node - forwards a redirect to a host of another node's partition to that partition's stream", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  // h0.test is in partition 1 (node a), h1.test in partition 4 (node b).
  expect([partitionOf("h0.test", P), partitionOf("h1.test", P)]).toEqual([1, 4]);
  await writeRing(
    bed.state,
    ringOf(P, (p) => (p === 4 ? "b" : "a")),
  );
  const a = await bed.node("a");
  const b = await bed.node("b");
  const fetcher = bed.fetcher({ redirect: (url) => (url === "http://h0.test/old" ? "http://h1.test/new" : undefined) });
  await waitFor(() => a.serving.length === P - 1 && b.serving.length === 1, "both nodes to serve");

  await publishUrls(bed.bus, P, discovered(["http://h0.test/old"], true));

  await waitFor(
    () => fetcher.pages().includes("http://h1.test/new") && b.frontier.inFlight === 0,
    "the redirect target to be fetched by its owner",
  );
  expect(b.frontier.explainUrl("http://h1.test/new", "h1.test").state).toBe("fetched");
  expect(a.frontier.explainUrl("http://h1.test/new", "h1.test").known).toBe(false);
  expect(a.frontier.explainUrl("http://h0.test/old", "h0.test").state).toBe("redirected");
  expect(a.frontier.counters.get("node.redirects.forwarded")).toBe(1);
});

test("frontier node - writes its record as soon as the partitions it serves change, not at its next heartbeat", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  // A heartbeat no test waits for: every record after the first is written because of a change.
  const node = await bed.node("n1", { heartbeatIntervalMs: 3_600_000 });
  const recorded = async () => (await bed.state.getNode("n1"))?.partitions;
  expect(await recorded()).toEqual([]);
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  await waitFor(async () => (await recorded())?.length === P, "the record to show every partition");
  expect(node.serving).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  // Partitions moved to a node that is gone (no handoff): the record drops them at once.
  await writeRing(
    bed.state,
    ringOf(P, (p) => (p < 4 ? "n1" : "gone"), undefined, 2),
  );
  await waitFor(async () => (await recorded())?.length === 4, "the record to show the four partitions left");
  expect(await recorded()).toEqual([0, 1, 2, 3]);
});

test("frontier node - releases a host whose fetch result never comes once the fetch lease has passed", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  let offset = 0;
  let dropped = false;
  const fetcher = bed.fetcher({
    // The first page task is taken and acked, and its result never published (its fetch node died).
    answer: (t) => t.kind !== "page" || dropped || !(dropped = true),
  });
  const node = await bed.node("n1", {
    now: () => Date.now() + offset,
    policy: { "min-gap": "0", "fetch-lease": "1s", "response-timeout": "500ms", "connect-timeout": "100ms" },
  });
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => dropped && node.frontier.inFlight === 1, "the page task to be lost");

  offset += 1_500;

  await waitFor(() => fetcher.pages().length === 2 && node.frontier.inFlight === 0, "the page to be dispatched again and applied");
  expect(fetcher.pages()).toEqual(["http://h0.test/", "http://h0.test/"]);
  expect(node.frontier.counters.get("frontier.lost-fetches")).toBe(1);
  expect(node.frontier.explainUrl("http://h0.test/", "h0.test").state).toBe("fetched");
});

test("frontier node - a clean stop gives back unanswered tasks, keeps their URLs queued and deletes the node record", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const store = FrontierStore.open(":memory:");
  bed.fetcher({ answer: (t) => t.kind !== "page" });
  const node = await bed.node("n1", { store, stopGraceMs: 50 });
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => node.frontier.counters.get("frontier.tasks.page") === 1, "the page task to be published");
  expect((await bed.state.listNodes()).map((n) => n.id)).toEqual(["n1"]);

  await node.stop();

  expect(node.frontier.inFlight).toBe(0);
  expect(node.frontier.counters.get("frontier.abandoned")).toBe(1);
  expect(store.head(partitionOf("h0.test", P), "h0.test")?.url).toBe("http://h0.test/");
  expect(await bed.state.listNodes()).toEqual([]);
});

test("frontier node - gRPC health says SERVING only once the ring gives it partitions and none is still to come, and NOT_SERVING while draining", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  const node = await bed.node("n1");
  const client = new HealthClient(node.grpcAddress, credentials.createInsecure());
  const check = (service: string) =>
    new Promise<Status | undefined>((resolve) => client.check({ service }, (_error, response) => resolve(response?.status)));
  try {
    // Started, but no ring yet: it holds nothing.
    expect(await check("")).toBe(Status.NOT_SERVING);
    expect(await check(FRONTIER)).toBe(Status.NOT_SERVING);

    // Half of the partitions still to be handed over by n0: not settled.
    await writeRing(
      bed.state,
      ringOf(
        P,
        () => "n1",
        (p) => (p % 2 === 0 ? "n0" : ""),
      ),
    );
    await waitFor(() => node.pending.await.length === P / 2, "n1 to await the even partitions");
    expect(await check(FRONTIER)).toBe(Status.NOT_SERVING);

    // Every partition is n1's: SERVING, for the service and the server as a whole.
    await writeRing(
      bed.state,
      ringOf(
        P,
        () => "n1",
        () => "",
        2,
      ),
    );
    await waitFor(async () => (await check(FRONTIER)) === Status.SERVING, "SERVING once settled");
    expect(await check("")).toBe(Status.SERVING);

    await node.drain();
    expect(await check(FRONTIER)).toBe(Status.NOT_SERVING);
    expect(await check("")).toBe(Status.NOT_SERVING);
  } finally {
    client.close();
  }
});

test("frontier node - heartbeats go on while the node records cannot be listed: a beat reads only its own record", async () => {
  // After a NATS server of three was killed, listing the records (the bucket leader's subject list) timed
  // out for 5 s per beat, the beats wrote nothing for 10 s, and the coordinator declared the node dead.
  bed = new TestBed(P);
  await bed.ensureRegion();
  bed.state.listNodes = () => new Promise<never>(() => {});
  await bed.node("f1");
  const beats = async () => (await bed.state.getNode("f1"))?.heartbeatAt ?? 0;
  const first = await beats();
  await waitFor(async () => (await beats()) > first, "a later heartbeat written");
});

test("frontier node - marks every task whose result it applied as done in the fetch claims, so a late delivery of it is dropped unfetched", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const claims = new MemoryFetchClaims();
  const node = await bed.node("n1", { fetchClaims: { claims, ttlMs: 60_000 } });
  const fetcher = bed.fetcher({ links: (url) => LINKS[url] ?? [] });
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/", "http://h1.test/"], true));
  await waitFor(() => fetcher.pages().length >= 6 && node.frontier.inFlight === 0, "every page to be fetched and applied");

  // Any copy of any of those tasks, delivered now (a fetch node that died after publishing the result,
  // before its ack), is told the task is done.
  const ids = fetcher.tasks.map((t) => t.taskId);
  expect(ids.length).toBe(9);
  const answers = await Promise.all(ids.map((id) => claims.claim(id, 1_000_000, 60_000)));
  expect(answers.map((a) => a.kind)).toEqual(ids.map(() => "done"));
  // A task the node never applied is not.
  expect((await claims.claim("never-dispatched", 1, 60_000)).kind).toBe("new");
});
