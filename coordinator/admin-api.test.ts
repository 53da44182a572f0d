import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { partitionOf } from "../core/ring/index.ts";
import { isDashboardAsset, serveHono } from "../adapters/http/index.ts";
import { TokenSet } from "../core/auth/index.ts";
import { connectNats, NatsKvClusterState } from "../adapters/nats/index.ts";
import { startNats } from "../tests/support/nats.ts";
import { adminApp } from "./admin-api.ts";
import { ADMIN_OPENAPI } from "./admin-openapi.ts";
import { harness, hostInfo, nodeRecord, P, stubFrontier, type Harness, type StubFrontier } from "./test-support.ts";

/** A response's JSON body, untyped: the tests read fields the API documents. */
async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

const TOKEN = "admin-token-for-tests-0001";
const auth = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...auth, "content-type": "application/json" };

let h: Harness;
let app: Hono;
let frontier: StubFrontier | undefined;

beforeEach(async () => {
  h = await harness();
  app = adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 });
});

afterEach(async () => {
  await frontier?.close();
  frontier = undefined;
  await h.close();
});

/** One live frontier node "f1" in region us, backed by a real stub server, and the ring written. */
async function withFrontier(): Promise<StubFrontier> {
  frontier = await stubFrontier("f1");
  await h.state.putNode(nodeRecord({ id: "f1", region: "us", heartbeatAt: h.clock.now, grpcAddress: frontier.server.address }));
  await h.rebalancer.tick();
  return frontier;
}

const get = (path: string, headers: Record<string, string> = auth) => app.request(path, { headers });
const post = (path: string, body?: string, headers: Record<string, string> = jsonHeaders) =>
  app.request(path, { method: "POST", headers, body });

describe("admin API", () => {
  test("admin - a standby answers /v1/ with 503 not_leader naming the leader; probes, /metrics and the document still answer", async () => {
    await h.state.putNode(nodeRecord({ id: "coord-2", role: "coordinator", heartbeatAt: h.clock.now, gauges: { leader: 1 } }));
    h.leadership.leader = false;
    for (const path of ["/v1/ring", "/v1/nodes", "/v1/stats", "/v1/hosts/a.com", "/v1/urls/explain?url=http://a.com/"]) {
      const res = await get(path);
      expect(res.status).toBe(503);
      const body = await json(res);
      expect(body.error).toMatchObject({ code: "not_leader", leader: "coord-2" });
      expect(body.error.message).toContain("coord-1 is a standby, not the leader; the leader is coord-2");
    }
    const seeds = await post("/v1/seeds", JSON.stringify({ urls: ["http://a.com/"] }));
    expect([seeds.status, (await json(seeds)).error.code]).toEqual([503, "not_leader"]);
    expect((await get("/v1/nodes", {})).status).toBe(401);
    expect((await app.request("/healthz")).status).toBe(200);
    expect((await app.request("/readyz")).status).toBe(503);
    expect((await get("/v1/openapi.json")).status).toBe(200);
    const metrics = await get("/metrics");
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/crawler_coordinator_leader\S* 0/);
  });

  test("admin - /healthz and /readyz need no token; readiness waits for the lease and a ring", async () => {
    expect((await app.request("/healthz")).status).toBe(200);
    expect((await app.request("/readyz")).status).toBe(503);
    await h.rebalancer.tick();
    expect((await app.request("/readyz")).status).toBe(200);
  });

  test("admin - every other route needs the bearer token, with WWW-Authenticate on a 401", async () => {
    // Every route the app serves (the OpenAPI test below keeps the document equal to this list), so a
    // route added later is covered without anyone remembering to list it here.
    // The health app's paths follow their own rule (/metrics: open unless a metrics token is set; below).
    const open = new Set(["/healthz", "/readyz", "/metrics"]);
    // The dashboard page's files hold no data (it asks for the token and sends it on its data calls).
    const routes = app.routes.filter((r) => r.method !== "ALL" && !open.has(r.path) && !isDashboardAsset(r.path));
    const checked: string[] = [];
    for (const { method, path: pattern } of routes) {
      const path = pattern.replace(/:host/g, "site0.test");
      const init = {
        method,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ urls: ["http://a.com/"] }) : undefined,
      };
      const missing = await app.request(path, init);
      expect({ route: `${method} ${path}`, status: missing.status }).toEqual({ route: `${method} ${path}`, status: 401 });
      expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="crawler"');
      const wrong = await app.request(path, { ...init, headers: { ...init.headers, authorization: "Bearer wrong-token-xxxxxxxxxxxx" } });
      expect({ route: `${method} ${path}`, status: wrong.status }).toEqual({ route: `${method} ${path}`, status: 401 });
      expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
      checked.push(`${method} ${pattern}`);
    }
    expect(checked).toContain("POST /v1/hosts/:host/pause");
    expect(checked).toContain("POST /v1/hosts/:host/resume");
    expect(checked.sort()).toEqual([
      "GET /v1/captures",
      "GET /v1/dashboard",
      "GET /v1/hosts/:host",
      "GET /v1/jobs",
      "GET /v1/jobs/:id",
      "GET /v1/jobs/:id/pages",
      "GET /v1/nodes",
      "GET /v1/openapi.json",
      "GET /v1/ring",
      "GET /v1/stats",
      "GET /v1/urls/explain",
      "POST /v1/hosts/:host/pause",
      "POST /v1/hosts/:host/resume",
      "POST /v1/jobs",
      "POST /v1/jobs/:id/cancel",
      "POST /v1/jobs/:id/pause",
      "POST /v1/jobs/:id/resume",
      "POST /v1/jobs/:id/seeds",
      "POST /v1/seeds",
    ]);
  });

  test("admin - two admin tokens are valid at once, so the token can be rotated without an outage", async () => {
    const next = "admin-token-for-tests-0002";
    const rotating = adminApp(h.services, { tokens: new TokenSet([next, TOKEN]), maxSeedsPerRequest: 100 });
    for (const token of [TOKEN, next])
      expect((await rotating.request("/v1/stats", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await rotating.request("/v1/stats", { headers: { authorization: "Bearer admin-token-for-tests-0003" } })).status).toBe(401);
  });

  test("admin - /metrics is open by default; with a metrics token it needs that token and refuses the admin token", async () => {
    expect((await app.request("/metrics")).status).toBe(200);
    const scraper = "metrics-token-for-tests-01";
    const guarded = adminApp(h.services, {
      tokens: new TokenSet([TOKEN]),
      metricsTokens: new TokenSet([scraper]),
      maxSeedsPerRequest: 100,
    });
    expect((await guarded.request("/metrics")).status).toBe(401);
    expect((await guarded.request("/metrics", { headers: auth })).status).toBe(401);
    expect((await guarded.request("/metrics", { headers: { authorization: `Bearer ${scraper}` } })).status).toBe(200);
    expect((await guarded.request("/healthz")).status).toBe(200);
    // The metrics token opens nothing else.
    expect((await guarded.request("/v1/stats", { headers: { authorization: `Bearer ${scraper}` } })).status).toBe(401);
  });

  test("admin - GET /v1/ring is 503 before the first ring and the ring with its revision after", async () => {
    const before = await get("/v1/ring");
    expect(before.status).toBe(503);
    expect((await json(before)).error.code).toBe("unavailable");
    await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now }));
    await h.rebalancer.tick();
    const body = await json(get("/v1/ring"));
    expect(body).toMatchObject({ partitions: P, epoch: 1, revision: expect.any(Number) });
    expect(body.regions.us.owners.every((o: string) => o === "f1")).toBe(true);
  });

  test("admin - GET /v1/ring over NATS is 503 unavailable, never 500, while nats-server is down and as it restarts", async () => {
    const storeDir = mkdtempSync(join(tmpdir(), "admin-ring-nats-"));
    let server = await startNats({ storeDir });
    const nc = await connectNats(server.url, "admin-ring", { reconnectTimeWait: 100 });
    const state = await NatsKvClusterState.open(nc, { onError: () => {} });
    try {
      const natsApp = adminApp({ ...h.services, state }, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 });
      await state.casRing({ epoch: 1, partitions: P, vnodes: 8, regions: {} }, 0);
      const ringStatus = async () => {
        const res = await natsApp.request("/v1/ring", { headers: auth });
        return { status: res.status, body: await json(res) };
      };
      expect((await ringStatus()).status).toBe(200);

      await server.kill();
      const down = await ringStatus();
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe("unavailable");
      expect(down.body.error.message).toContain("the cluster state (NATS) cannot be read now");

      // Right after the restart JetStream answers "not enabled" for a while: still 503, until the ring is read.
      server = await startNats({ storeDir, port: server.port });
      const seen = new Set<number>();
      for (let answer = await ringStatus(); answer.status !== 200; answer = await ringStatus()) {
        seen.add(answer.status);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([...seen].filter((status) => status !== 503)).toEqual([]);
    } finally {
      await state.close();
      await nc.close();
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("admin - GET /v1/nodes lists records with their state", async () => {
    await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now }));
    await h.state.putNode(nodeRecord({ id: "f2", heartbeatAt: h.clock.now - 60_000 }));
    const body = await json(get("/v1/nodes"));
    expect(body.nodes.map((n: { id: string; state: string }) => [n.id, n.state])).toEqual([
      ["f1", "live"],
      ["f2", "dead"],
    ]);
    expect(body.nodes[1].heartbeatAgeMs).toBe(60_000);
  });

  test("admin - GET /v1/stats and /metrics show the cluster totals", async () => {
    await h.state.putNode(
      nodeRecord({
        id: "f1",
        heartbeatAt: h.clock.now,
        counters: { "fetch.status.200": 42, "fetch.pages": 42 },
        gauges: { queued: 7, inFlight: 2 },
      }),
    );
    const stats = await json(get("/v1/stats"));
    expect(stats).toMatchObject({ pagesFetched: 42, queued: 7, inFlight: 2, frontierNodes: 1 });
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toContain("crawler_cluster_fetch_status_200_total 42");
    expect(metrics).toContain("crawler_cluster_pages_fetched_total 42");
    expect(metrics).toContain("crawler_cluster_queued 7");
  });

  test("admin - POST /v1/seeds publishes and reports rejected URLs with reasons", async () => {
    const got: string[] = [];
    h.bus.consumeUrls("us", partitionOf("example.com", P), async (d) => {
      for (const item of d.data.map((u) => u.url)) got.push(item);
      await d.ack();
    });
    const res = await post("/v1/seeds", JSON.stringify({ urls: ["https://Example.com/x", "mailto:a@b.c", "http://0x7f000001/"] }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      accepted: 1,
      rejected: [
        { url: "mailto:a@b.c", reason: "unsupported-scheme: mailto" },
        { url: "http://0x7f000001/", reason: "refused-address: loopback: 127.0.0.1 is a loopback address" },
      ],
    });
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual(["https://example.com/x"]);
  });

  test("admin - POST /v1/seeds with feeds publishes each as a feed to read, not a page", async () => {
    const got: Array<{ url: string; feed?: boolean }> = [];
    h.bus.consumeUrls("us", partitionOf("news.com", P), async (d) => {
      for (const u of d.data) got.push({ url: u.url, ...(u.sitemap?.feed ? { feed: true } : {}) });
      await d.ack();
    });
    const res = await post("/v1/seeds", JSON.stringify({ feeds: ["http://news.com/feed.xml"] }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ accepted: 1, rejected: [] });
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([{ url: "http://news.com/feed.xml", feed: true }]);
  });

  test("admin - a bad seeds body is a 400 that says what is wrong", async () => {
    const cases: Array<[string | undefined, Record<string, string>, RegExp]> = [
      ["not json", jsonHeaders, /not valid JSON/],
      [undefined, jsonHeaders, /empty/],
      [JSON.stringify({ urls: ["http://a.com/"] }), { ...auth, "content-type": "text/plain" }, /Content-Type: application\/json/],
      [JSON.stringify([1, 2]), jsonHeaders, /must be a JSON object, got an array/],
      [JSON.stringify({}), jsonHeaders, /urls: required/],
      [JSON.stringify({ urls: "http://a.com/" }), jsonHeaders, /urls: must be an array of strings, got a string/],
      [JSON.stringify({ urls: [] }), jsonHeaders, /at least one URL/],
      [JSON.stringify({ urls: ["http://a.com/", 7] }), jsonHeaders, /urls\[1\]: must be a string, got a number/],
      [JSON.stringify({ urls: Array.from({ length: 101 }, (_, i) => `http://a${i}.com/`) }), jsonHeaders, /at most 100 URLs/],
      [JSON.stringify({ urls: ["http://a.com/"], url: "x" }), jsonHeaders, /unknown field "url"/],
      [JSON.stringify({ feeds: [] }), jsonHeaders, /feeds: give at least one URL/],
      [JSON.stringify({ feeds: "http://a.com/feed" }), jsonHeaders, /feeds: must be an array of strings, got a string/],
      [JSON.stringify({ urls: ["http://a.com/"], feeds: [""] }), jsonHeaders, /feeds\[0\]: must not be empty/],
      [
        JSON.stringify({
          urls: Array.from({ length: 60 }, (_, i) => `http://a${i}.com/`),
          feeds: Array.from({ length: 41 }, (_, i) => `http://f${i}.com/`),
        }),
        jsonHeaders,
        /urls and feeds: at most 100 URLs per request, got 101/,
      ],
    ];
    for (const [body, headers, reason] of cases) {
      const res = await post("/v1/seeds", body, headers);
      expect(res.status).toBe(400);
      const answer = await json(res);
      expect(answer.error.code).toBe("invalid_argument");
      expect(answer.error.message).toMatch(reason);
    }
  });

  test("admin - GET /v1/hosts/:host asks the owning frontier node", async () => {
    const f = await withFrontier();
    f.hosts.set("example.com", hostInfo("example.com"));
    const res = await get("/v1/hosts/Example.COM");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.host).toMatchObject({
      host: "example.com",
      owner: "f1",
      region: "us",
      partition: partitionOf("example.com", P),
      queued: 3,
      fetches: 12,
    });
  });

  test("admin - pause and resume go to the owning frontier node", async () => {
    const f = await withFrontier();
    f.hosts.set("example.com", hostInfo("example.com"));
    expect((await json(post("/v1/hosts/example.com/pause"))).host.paused).toBe(true);
    expect(f.hosts.get("example.com")!.paused).toBe(true);
    expect((await json(post("/v1/hosts/example.com/resume"))).host.paused).toBe(false);
  });

  test("admin - a host nobody owns is 404, a host the owner does not know is 404, a bad host is 400", async () => {
    const none = await get("/v1/hosts/example.com");
    expect(none.status).toBe(404);
    expect((await json(none)).error.message).toContain("no frontier node owns example.com");
    await withFrontier();
    const unknown = await get("/v1/hosts/unknown.example");
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.message).toContain("not known to f1");
    expect((await get("/v1/hosts/a%20b")).status).toBe(400);
  });

  test("admin - an owner that does not answer is 503 naming the node", async () => {
    const f = await withFrontier();
    await f.close();
    const res = await get("/v1/hosts/example.com");
    expect(res.status).toBe(503);
    expect((await json(res)).error.message).toContain("frontier node f1 at 127.0.0.1:");
  });

  test("admin - an owner whose heartbeat stopped is 503 without calling it", async () => {
    await withFrontier();
    h.clock.now += 60_000;
    const res = await get("/v1/hosts/example.com");
    expect(res.status).toBe(503);
    expect((await json(res)).error.message).toContain("is dead");
  });

  test("admin - host names longer than 253 characters are a 400 that does not echo them", async () => {
    const long = "a".repeat(5_000);
    for (const res of [
      await get(`/v1/hosts/${long}`),
      await post(`/v1/hosts/${long}.com/pause`),
      await get(`/v1/hosts/${"a.".repeat(127)}com`),
    ]) {
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text).error).toMatchObject({
        code: "invalid_argument",
        message: expect.stringContaining("longer than 253 characters"),
      });
      expect(text.length).toBeLessThan(300);
    }
  });

  test("admin - explain of something that is not a URL is a 400; of a URL too long to parse, too", async () => {
    for (const input of ["garbage", "http://", "http://1.2.3.999/", `http://a.com/${"x".repeat(9_000)}`]) {
      const res = await get(`/v1/urls/explain?url=${encodeURIComponent(input)}`);
      expect({ input: input.slice(0, 20), status: res.status }).toEqual({ input: input.slice(0, 20), status: 400 });
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe("invalid_argument");
      expect(text.length).toBeLessThan(300);
    }
  });

  test("admin - GET /v1/urls/explain explains a rejected URL without any frontier node", async () => {
    const res = await get(`/v1/urls/explain?url=${encodeURIComponent("javascript:alert(1)")}`);
    expect(res.status).toBe(200);
    expect((await json(res)).explanation).toMatchObject({
      input: "javascript:alert(1)",
      normalized: "",
      rejectedReason: "unsupported-scheme: javascript",
    });
    expect((await get("/v1/urls/explain")).status).toBe(400);
  });

  test("admin - GET /v1/urls/explain merges the owner's answer with the addressing", async () => {
    await withFrontier();
    const body = await json(get(`/v1/urls/explain?url=${encodeURIComponent("http://Example.com/a#x")}`));
    expect(body.explanation).toMatchObject({
      normalized: "http://example.com/a",
      host: "example.com",
      owner: "f1",
      region: "us",
      seen: true,
      state: "fetched",
      note: "answered by f1",
      lastFetchedAtMs: 999_000,
    });
  });

  test("admin - GET /v1/captures asks the node holding the URL's host and answers its captures, newest first; none is []", async () => {
    const f = await withFrontier();
    const capture = (at: number, file: string) => ({
      fetchedAtMs: BigInt(at),
      status: 200,
      contentType: "text/html",
      digest: "00ff",
      job: "default",
      warc: { file, offset: 1234n, length: 567n },
    });
    f.captures.set("http://example.com/a", [
      capture(Date.UTC(2026, 0, 2), "s3://bucket/x-2.warc.gz"),
      capture(Date.UTC(2026, 0, 1), "x-1.warc.gz"),
    ]);
    const res = await get(`/v1/captures?url=${encodeURIComponent("http://Example.com/a#x")}&limit=5`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([
      {
        timestamp: "2026-01-02T00:00:00.000Z",
        status: 200,
        contentType: "text/html",
        digest: "00ff",
        job: "default",
        warc: { file: "s3://bucket/x-2.warc.gz", offset: 1234, length: 567 },
      },
      {
        timestamp: "2026-01-01T00:00:00.000Z",
        status: 200,
        contentType: "text/html",
        digest: "00ff",
        job: "default",
        warc: { file: "x-1.warc.gz", offset: 1234, length: 567 },
      },
    ]);
    expect(f.captureLimits).toEqual([5]);
    expect(await json(get(`/v1/captures?url=${encodeURIComponent("http://example.com/never")}`))).toEqual([]);
    expect(await json(get(`/v1/captures?url=${encodeURIComponent("http://example.com/a")}&limit=1`))).toHaveLength(1);
  });

  test("admin - GET /v1/captures: a missing or bad url or limit is a 400 with a reason; a partition nobody owns is a 404", async () => {
    for (const query of [
      "",
      "?url=",
      "?url=garbage",
      "?url=ftp%3A%2F%2Fa.com%2F",
      "?url=http%3A%2F%2Fa.com%2F&limit=0",
      "?url=http%3A%2F%2Fa.com%2F&limit=-3",
      "?url=http%3A%2F%2Fa.com%2F&limit=x",
      `?url=http%3A%2F%2Fa.com%2F${"x".repeat(9000)}`,
    ]) {
      const res = await get(`/v1/captures${query}`);
      expect({ query: query.slice(0, 40), status: res.status }).toEqual({ query: query.slice(0, 40), status: 400 });
      const body = await json(res);
      expect(body.error.code).toBe("invalid_argument");
      expect(body.error.message).toMatch(/^(url|limit)[: ]/);
    }
    const orphan = await get(`/v1/captures?url=${encodeURIComponent("http://a.com/")}`);
    expect(orphan.status).toBe(404);
    expect((await json(orphan)).error.message).toContain("no frontier node owns a.com");
  });

  test("admin - an unknown route is a JSON 404 that quotes at most a short prefix of the path", async () => {
    const res = await get("/v1/nope");
    expect(res.status).toBe(404);
    expect((await json(res)).error).toEqual({ code: "not_found", message: "no route GET /v1/nope" });
    const long = await get(`/v1/${"z".repeat(5_000)}`);
    expect(long.status).toBe(404);
    expect((await long.text()).length).toBeLessThan(300);
  });

  test("admin - a known route with the wrong method is a JSON 405 with Allow", async () => {
    const wrong = await get("/v1/seeds");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await json(wrong)).error.code).toBe("method_not_allowed");
    const del = await app.request("/v1/ring", { method: "DELETE", headers: auth });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET");
    expect((await app.request("/v1/hosts/example.com/pause", { headers: auth })).status).toBe(405);
    // Authentication still comes first.
    expect((await app.request("/v1/seeds")).status).toBe(401);
  });

  test("admin - over a real socket: a wrong token with a 10 MB body is 401, the right one is a JSON 413", async () => {
    const server = await serveHono(app, { port: 0, maxBodyBytes: 1024 * 1024 });
    try {
      const big = new Uint8Array(10 * 1024 * 1024).fill(0x20);
      const wrong = await fetch(`${server.url}/v1/seeds`, {
        method: "POST",
        body: big,
        headers: { authorization: "Bearer wrong-token-xxxxxxxxxxxx", "content-type": "application/json" },
      });
      expect(wrong.status).toBe(401);
      expect((await json(wrong)).error.code).toBe("unauthenticated");
      const right = await fetch(`${server.url}/v1/seeds`, { method: "POST", body: big, headers: jsonHeaders });
      expect(right.status).toBe(413);
      expect((await json(right)).error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("1048576 bytes") });
      const malformed = await fetch(`${server.url}/v1/seeds`, { method: "POST", body: "{", headers: jsonHeaders });
      expect(malformed.status).toBe(400);
      expect((await json(malformed)).error.code).toBe("invalid_argument");
    } finally {
      await server.close();
    }
  });

  test("admin - the OpenAPI document describes every route of the app, and nothing else", async () => {
    const doc = await json(get("/v1/openapi.json"));
    expect(doc.openapi).toBe("3.1.0");
    const routes = new Set(
      app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
    );
    const documented = new Set(
      Object.entries(ADMIN_OPENAPI.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)),
    );
    expect([...routes].sort()).toEqual([...documented].sort());
    expect(routes.size).toBe(26);
  });
});
