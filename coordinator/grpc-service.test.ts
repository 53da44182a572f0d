import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { TokenSet } from "../core/auth/index.ts";
import { CoordinatorClient } from "../adapters/grpc/clients.ts";
import { InvalidArgumentError, NotFoundError, NotLeaderError, UnauthenticatedError, UnavailableError } from "../core/errors/index.ts";
import { startGrpcServer, type RunningGrpcServer } from "../adapters/grpc/server.ts";
import { partitionOf } from "../core/ring/index.ts";
import { NodeRole, NodeState } from "../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { adminApp } from "./admin-api.ts";
import { coordinatorGrpcService } from "./grpc-service.ts";
import { harness, hostInfo, nodeRecord, P, stubFrontier, type Harness, type StubFrontier } from "./test-support.ts";

/** A response's JSON body, untyped: the tests read fields the API documents. */
async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

const TOKEN = "grpc-token-for-tests-00001";

/**
 * The error a call failed with. (Bun's `expect(promise).rejects` stalled grpc-js calls here: the answer
 * arrived only after the deadline, so the tests await the promise themselves.)
 */
const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

let h: Harness;
let server: RunningGrpcServer;
let client: CoordinatorClient;
let frontier: StubFrontier;

beforeEach(async () => {
  h = await harness();
  server = await startGrpcServer([coordinatorGrpcService(h.services, { tokens: new TokenSet([TOKEN]) })], "127.0.0.1:0");
  client = new CoordinatorClient(server.address, { token: TOKEN, deadlineMs: 3_000 });
  frontier = await stubFrontier("f1");
  await h.state.putNode(
    nodeRecord({ id: "f1", region: "us", heartbeatAt: h.clock.now, grpcAddress: frontier.server.address, partitions: [1, 2] }),
  );
  await h.state.putNode(nodeRecord({ id: "x1", role: "fetcher", region: "us", runtime: "deno", heartbeatAt: h.clock.now - 60_000 }));
  await h.rebalancer.tick();
});

afterEach(async () => {
  client.close();
  await server.close(100);
  await frontier.close();
  await h.close();
});

describe("coordinator gRPC service", () => {
  test("grpc - a standby refuses every call with NotLeaderError naming the leader and where to reach it", async () => {
    await h.state.putNode(
      nodeRecord({
        id: "coord-2",
        role: "coordinator",
        heartbeatAt: h.clock.now,
        grpcAddress: "127.0.0.1:7400",
        httpAddress: "http://127.0.0.1:7480",
        gauges: { leader: 1 },
      }),
    );
    h.leadership.leader = false;
    for (const call of [client.getStatus(), client.listNodes(), client.addSeeds(["http://a.com/"]), client.drainNode("f1")]) {
      const error = await failure(call);
      expect(error).toBeInstanceOf(NotLeaderError);
      expect((error as NotLeaderError).leader).toBe("coord-2");
      expect((error as Error).message).toContain("coord-1 is a standby, not the leader; the leader is coord-2 (gRPC 127.0.0.1:7400");
    }
    // Nothing was done: the drain was refused before it touched the record.
    expect((await h.state.listNodes()).find((n) => n.id === "f1")!.status).toBe("active");
    // Authentication still comes first.
    const anonymous = new CoordinatorClient(server.address, { deadlineMs: 3_000 });
    expect(await failure(anonymous.getStatus())).toBeInstanceOf(UnauthenticatedError);
    anonymous.close();
  });

  test("grpc - a dead node is listed as dead with no partitions", async () => {
    h.clock.now += 11_000;
    await h.state.putNode(nodeRecord({ id: "f9", region: "us", heartbeatAt: h.clock.now }));
    const { nodes } = await client.listNodes();
    const f1 = nodes.find((n) => n.id === "f1")!;
    expect([f1.state, f1.partitions]).toEqual([NodeState.NODE_STATE_DEAD, []]);
  });

  test("grpc - GetRing returns every partition of every region with its owner", async () => {
    const ring = await client.getRing();
    expect(ring.partitions).toBe(P);
    expect(ring.epoch).toBe(1n);
    expect(ring.regions.map((r) => r.region)).toEqual(["eu", "us"]);
    const us = ring.regions.find((r) => r.region === "us")!;
    expect(us.assignments.length).toBe(P);
    expect(us.assignments[5]).toEqual({ partition: 5, owner: "f1", previousOwner: "" });
  });

  test("grpc - ListNodes shows roles, states and heartbeats", async () => {
    const { nodes } = await client.listNodes();
    expect(nodes.map((n) => [n.id, n.role, n.state, n.runtime])).toEqual([
      ["f1", NodeRole.NODE_ROLE_FRONTIER, NodeState.NODE_STATE_ACTIVE, "bun"],
      ["x1", NodeRole.NODE_ROLE_FETCHER, NodeState.NODE_STATE_DEAD, "deno"],
    ]);
    expect(nodes[0]!.partitions).toEqual([1, 2]);
    expect(nodes[0]!.lastHeartbeatMs).toBe(BigInt(h.clock.now));
  });

  test("grpc - AddSeeds publishes accepted URLs and lists rejected ones", async () => {
    const got: string[] = [];
    h.bus.consumeUrls("eu", partitionOf("beispiel.de", P), async (d) => {
      for (const item of d.data.map((u) => u.url)) got.push(item);
      await d.ack();
    });
    const res = await client.addSeeds(["http://beispiel.de/", "not a url"]);
    expect(res.accepted).toBe(1);
    expect(res.rejected).toEqual([{ url: "not a url", reason: expect.stringMatching(/^unparseable/) }]);
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual(["http://beispiel.de/"]);
  });

  test("grpc - CreateJob and AddJobSeeds take feeds: published marked feed, carrying the job's number", async () => {
    const got: Array<{ url: string; feed: boolean; job: number }> = [];
    h.bus.consumeUrls("eu", partitionOf("beispiel.de", P), async (d) => {
      for (const u of d.data) got.push({ url: u.url, feed: u.sitemap?.feed === true, job: u.job ?? 0 });
      await d.ack();
    });
    const created = await client.createJob({
      id: "news",
      seeds: ["http://beispiel.de/"],
      feeds: ["http://beispiel.de/feed.xml"],
      maxPages: 0n,
      maxDuration: "",
      weight: 0,
    });
    expect([created.job!.number, created.accepted, created.rejected]).toEqual([1, 2, []]);
    const added = await client.addJobSeeds("news", [], undefined, ["http://beispiel.de/atom.xml", "not a url"]);
    expect([added.accepted, added.rejected.map((r) => r.url)]).toEqual([1, ["not a url"]]);
    for (let i = 0; i < 100 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got.sort((a, b) => a.url.localeCompare(b.url))).toEqual([
      { url: "http://beispiel.de/", feed: false, job: 1 },
      { url: "http://beispiel.de/atom.xml", feed: true, job: 1 },
      { url: "http://beispiel.de/feed.xml", feed: true, job: 1 },
    ]);
    // Neither urls nor feeds: refused with the field named, nothing published.
    expect(String(await failure(client.addJobSeeds("news", [])))).toContain("urls: required (or feeds)");
  });

  test("grpc - ExplainUrl of a rejected URL answers with the reason and no owner", async () => {
    const { explanation } = await client.explainUrl("ftp://files.example.com/x");
    expect(explanation).toMatchObject({
      input: "ftp://files.example.com/x",
      normalized: "",
      rejectedReason: "unsupported-scheme: ftp",
      owner: "",
    });
  });

  test("grpc - GetHost is routed to the frontier node that owns the host", async () => {
    frontier.hosts.set("example.com", hostInfo("example.com", { queued: 9n }));
    const { host } = await client.getHost("example.com");
    expect(host).toMatchObject({ host: "example.com", owner: "f1", region: "us", partition: partitionOf("example.com", P), queued: 9n });
    expect(await failure(client.getHost("unknown.example"))).toBeInstanceOf(NotFoundError);
  });

  test("grpc - GetHost with the owner down is UNAVAILABLE with a message naming it", async () => {
    await frontier.close();
    const error = await client.getHost("example.com").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toContain("frontier node f1 at 127.0.0.1:");
  });

  test("grpc - SetHostPaused is routed to the owner", async () => {
    frontier.hosts.set("example.com", hostInfo("example.com"));
    expect((await client.setHostPaused("example.com", true)).host?.paused).toBe(true);
    expect(frontier.hosts.get("example.com")!.paused).toBe(true);
  });

  test("grpc - DrainNode marks the record draining and tells the frontier node", async () => {
    const res = await client.drainNode("f1");
    expect(res).toEqual({ nodeId: "f1", state: NodeState.NODE_STATE_DRAINING });
    expect((await h.state.listNodes()).find((n) => n.id === "f1")!.status).toBe("draining");
    expect(frontier.drained).toBe(1);
    expect(await failure(client.drainNode("nope"))).toBeInstanceOf(NotFoundError);
  });

  test("grpc - GetStatus shows the same numbers as the admin API's /v1/stats", async () => {
    await h.state.putNode(
      nodeRecord({
        id: "f1",
        heartbeatAt: h.clock.now,
        grpcAddress: frontier.server.address,
        counters: { "fetch.status.200": 30, "fetch.status.500": 2, "fetch.pages": 32 },
        gauges: { queued: 11, inFlight: 1 },
      }),
    );
    const status = await client.getStatus();
    const http = await json(
      adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 10 }).request("/v1/stats", {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    );
    expect(status.pagesFetched).toBe(32n);
    expect({
      pagesFetched: Number(status.pagesFetched),
      pagesPerSecond: status.pagesPerSecond,
      queued: Number(status.queued),
      inFlight: Number(status.inFlight),
      errors: Number(status.errors),
      frontierNodes: status.frontierNodes,
      fetchNodes: status.fetchNodes,
      atMs: Number(status.atMs),
      counters: Object.fromEntries(Object.entries(status.counters).map(([k, v]) => [k, Number(v)])),
    }).toEqual({
      pagesFetched: http.pagesFetched,
      pagesPerSecond: http.pagesPerSecond,
      queued: http.queued,
      inFlight: http.inFlight,
      errors: http.errors,
      frontierNodes: http.frontierNodes,
      fetchNodes: http.fetchNodes,
      atMs: http.atMs,
      counters: http.counters,
    });
  });

  test("grpc - a call without the token, or with a wrong one, is UNAUTHENTICATED", async () => {
    const anonymous = new CoordinatorClient(server.address);
    const wrong = new CoordinatorClient(server.address, { token: "not-the-token-000000000" });
    try {
      expect(await failure(anonymous.getRing())).toBeInstanceOf(UnauthenticatedError);
      expect(await failure(wrong.listNodes())).toBeInstanceOf(UnauthenticatedError);
    } finally {
      anonymous.close();
      wrong.close();
    }
  });

  test("grpc - two tokens are valid at once during a rotation, as on the admin API", async () => {
    const next = "grpc-token-for-tests-00002";
    const rotating = await startGrpcServer([coordinatorGrpcService(h.services, { tokens: new TokenSet([next, TOKEN]) })], "127.0.0.1:0");
    const clients = [TOKEN, next, "grpc-token-for-tests-00003"].map(
      (token) => new CoordinatorClient(rotating.address, { token, deadlineMs: 3_000 }),
    );
    try {
      expect((await clients[0]!.listNodes()).nodes.length).toBeGreaterThan(0);
      expect((await clients[1]!.listNodes()).nodes.length).toBeGreaterThan(0);
      expect(await failure(clients[2]!.listNodes())).toBeInstanceOf(UnauthenticatedError);
    } finally {
      for (const c of clients) c.close();
      await rotating.close(100);
    }
  });

  test("grpc - seeds on internal addresses are rejected with the address policy's reason; explain of garbage is INVALID_ARGUMENT", async () => {
    const outcome = await client.addSeeds([
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http:///nohost",
      "http://example.com/",
    ]);
    expect(outcome.accepted).toBe(1);
    expect(outcome.rejected.map((r) => r.reason)).toEqual([
      "refused-address: metadata: 169.254.169.254 is a metadata address",
      "refused-address: loopback: ::1 is a loopback address",
      "refused-address: single-label: nohost is a single-label name (a resolver completes it with its private search domains)",
    ]);
    expect(await failure(client.explainUrl("garbage"))).toBeInstanceOf(InvalidArgumentError);
  });
});
