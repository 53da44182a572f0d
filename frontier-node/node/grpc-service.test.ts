import { afterEach, expect, test } from "bun:test";
import { partitionOf } from "../../core/ring/index.ts";
import { FrontierClient } from "../../adapters/grpc/index.ts";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "../../core/errors/index.ts";
import { DiscoveredUrl } from "../../proto/gen/crawler/fetch/v1/fetch.ts";
import { discovered, publishUrls, REGION, ringOf, TestBed, waitFor, writeRing } from "./testing.ts";

/** The sitemap fields of a DiscoveredUrl message, unset (these URLs are pages). */
/** A discovered URL as a caller sends it over the wire: every field the test does not name at its default. */
function wireUrl(url: string, depth: number, isSeed: boolean): DiscoveredUrl {
  return DiscoveredUrl.fromPartial({ url, depth, isSeed });
}

const P = 8;
let bed: TestBed;
let client: FrontierClient | undefined;

/**
 * What a call failed with. (Bun's `expect(promise).rejects` waits on the promise without letting grpc-js
 * read its socket here, so a gRPC call under it never completes: await the failure first.)
 */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => new Error("the call succeeded"),
    (error: unknown) => error,
  );
}

afterEach(async () => {
  client?.close();
  client = undefined;
  await bed.close();
});

/** Node n1 serves every partition but h1.test's (4), which node n2 serves; h0.test/ was crawled. */
async function crawled() {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, (p) => (p === partitionOf("h1.test", P) ? "n2" : "n1")),
  );
  const fetcher = bed.fetcher({ links: (url) => (url === "http://h0.test/" ? ["http://h0.test/a?a=1&b=2"] : []) });
  const node = await bed.node("n1", { httpListen: "127.0.0.1:0" });
  await waitFor(() => node.serving.length === P - 1, "n1 to serve");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => fetcher.pages().length === 2 && node.frontier.inFlight === 0, "h0.test to be crawled");
  client = new FrontierClient(node.grpcAddress);
  return { node, client, fetcher };
}

test("grpc - GetHost shows a host's politeness, robots and queue state, with its partition, region and owner", async () => {
  const { client } = await crawled();
  const { host } = await client.getHost("H0.test");
  expect(host).toMatchObject({
    host: "h0.test",
    partition: partitionOf("h0.test", P),
    region: REGION,
    owner: "n1",
    queued: 0n,
    inFlight: false,
    paused: false,
    robotsVerdict: "allow-all",
    fetches: 3n,
    lastStatus: 200,
  });
  expect((await client.getHost("http://h0.test/some/page")).host?.host).toBe("h0.test");
  expect(await failure(client.getHost("nowhere.test"))).toBeInstanceOf(NotFoundError);
  expect(await failure(client.getHost("not a host/"))).toBeInstanceOf(InvalidArgumentError);
});

test("grpc - ExplainUrl normalizes the URL and tells its partition, owner, seen state, robots verdict and fetch state", async () => {
  const { client } = await crawled();
  const { explanation } = await client.explainUrl("HTTP://h0.test/a?a=1&b=2#frag");
  expect(explanation).toMatchObject({
    normalized: "http://h0.test/a?a=1&b=2",
    rejectedReason: "",
    host: "h0.test",
    partition: partitionOf("h0.test", P),
    region: REGION,
    owner: "n1",
    seen: true,
    robots: "allowed",
    state: "fetched",
    lastStatus: 200,
    trap: "",
  });
  expect(explanation!.lastFetchedAtMs).toBeGreaterThan(0n);
  const unknown = (await client.explainUrl("http://h1.test/x")).explanation!;
  expect(unknown).toMatchObject({ seen: false, state: "unknown", owner: "n2", robots: "unknown" });
  expect((await client.explainUrl("mailto:someone@example.com")).explanation!.rejectedReason).not.toBe("");
});

test("grpc - host changes need the owner: pausing a host of another node's partition names that node", async () => {
  const { client, node } = await crawled();
  const paused = await client.setHostPaused("h0.test", true);
  expect(paused.host?.paused).toBe(true);
  expect(node.frontier.hostInfo("h0.test")?.state.paused).toBe(true);
  const policy = await client.setHostPolicy("h0.test", 5_000n);
  expect(policy.host?.minGapOverrideMs).toBe(5_000n);
  const refused = await failure(client.setHostPaused("h1.test", true));
  expect(refused).toBeInstanceOf(FailedPreconditionError);
  expect((refused as Error).message).toMatch(/served by node n2/);
});

test("grpc - Enqueue admits URLs of served partitions and forwards the others to their owner's stream", async () => {
  const { client, fetcher } = await crawled();
  const response = await client.enqueue({ urls: [wireUrl("http://h2.test/", 0, true), wireUrl("http://h1.test/", 0, true)] });
  expect(response.admitted).toBe(2);
  expect(bed.bus.depth(`${REGION}/urls-${partitionOf("h1.test", P)}`)).toBe(1);
  await waitFor(() => fetcher.pages().includes("http://h2.test/"), "the admitted seed to be fetched");
  expect(await failure(client.enqueue({ urls: [wireUrl("ftp://h2.test/", 0, true)] }))).toBeInstanceOf(InvalidArgumentError);
});

test("grpc - GetStats and ListHosts report the node's gauges, counters and active hosts", async () => {
  const { client, node } = await crawled();
  node.frontier.setHostPaused("h0.test", true);
  await client.enqueue({ urls: [wireUrl("http://h0.test/later", 1, false)] });
  const stats = await client.getStats();
  expect(stats).toMatchObject({ nodeId: "n1", queued: 1n, inFlight: 0 });
  expect(stats.partitions).toEqual([0, 1, 2, 3, 5, 6, 7]);
  expect(stats.counters["node.results.received"]).toBe(3n);
  const { hosts } = await client.listHosts(10);
  expect(hosts.map((h) => [h.host, h.queued, h.paused])).toEqual([["h0.test", 1n, true]]);
  const drained = await client.drain();
  expect(drained.inFlight).toBe(0);
  expect(node.frontier.isDraining).toBe(true);
});

test("http - the node serves /healthz, /readyz and Prometheus /metrics", async () => {
  const { node } = await crawled();
  expect((await fetch(`${node.httpAddress}/healthz`)).status).toBe(200);
  await waitFor(() => node.ready, "the node to be ready");
  expect((await fetch(`${node.httpAddress}/readyz`)).status).toBe(200);
  const metrics = await (await fetch(`${node.httpAddress}/metrics`)).text();
  expect(metrics).toContain('crawler_node_tasks_published_total{node="n1",region="r1"} 3');
  expect(metrics).toContain('crawler_partitions_served{node="n1",region="r1"} 7');
});

test("grpc - ListCaptures answers where a URL's captures are from this node's store, newest first; a bad URL or limit is INVALID_ARGUMENT", async () => {
  const { client } = await crawled();
  const answer = await client.listCaptures("HTTP://h0.test/#top", 0);
  expect(answer.url).toBe("http://h0.test/");
  expect(answer.captures).toHaveLength(1);
  expect(answer.captures[0]).toMatchObject({
    status: 200,
    contentType: "text/html",
    digest: "fp-http://h0.test/",
    job: "default",
    warc: { file: "fake-fetcher.warc.gz", offset: BigInt("http://h0.test/".length * 1000), length: 100n },
  });
  expect((await client.listCaptures("http://h0.test/", 1)).captures).toHaveLength(1);
  expect((await client.listCaptures("http://h0.test/never", 0)).captures).toEqual([]);
  expect(await failure(client.listCaptures("", 0))).toBeInstanceOf(InvalidArgumentError);
  expect(await failure(client.listCaptures("mailto:someone@example.com", 0))).toBeInstanceOf(InvalidArgumentError);
  expect(await failure(client.listCaptures("http://h0.test/", 1001))).toBeInstanceOf(InvalidArgumentError);
});
