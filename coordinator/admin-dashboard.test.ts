/**
 * The dashboard on the admin API: the page is open (it holds no data), its data needs the admin token, and
 * `/v1/dashboard` is built from the node records in the documented shape.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Hono } from "hono";
import { TokenSet } from "../core/auth/index.ts";
import { shapeProblems } from "../tests/support/schema-shape.ts";
import { adminApp } from "./admin-api.ts";
import { ADMIN_OPENAPI } from "./admin-openapi.ts";
import { harness, nodeRecord, type Harness } from "./test-support.ts";

const TOKEN = "admin-token-for-tests-0001";
const auth = { authorization: `Bearer ${TOKEN}` };

let h: Harness;
let app: Hono;

beforeEach(async () => {
  h = await harness();
  app = adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 });
});

afterEach(async () => {
  await h.close();
});

const row = (host: string, fields: object = {}) => ({
  host,
  queued: 3,
  inFlight: false,
  gapMs: 2000,
  nextAllowedAt: h.clock.now + 1000,
  throttleMs: 0,
  throttles: 0,
  fetchMs: 120,
  fetches: 4,
  lastStatus: 200,
  lastError: "",
  robotsVerdict: "parse",
  robotsExpiresAt: h.clock.now + 86_400_000,
  ...fields,
});

describe("admin dashboard", () => {
  test("dashboard - the page and its files are served without a token, with a strict content security policy", async () => {
    const page = await app.request("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/dashboard/app.js"');
    expect(html).not.toMatch(/<script>(?!<)/); // no inline script: the CSP would refuse it
    for (const path of ["/dashboard/app.js", "/dashboard/app.css"]) expect((await app.request(path)).status).toBe(200);
    expect(await (await app.request("/dashboard/config.json")).json()).toEqual({ tokenRequired: true, source: "cluster" });
  });

  test("dashboard - its data needs the admin token", async () => {
    expect((await app.request("/v1/dashboard")).status).toBe(401);
    const wrong = await app.request("/v1/dashboard", { headers: { authorization: "Bearer wrong-token-xxxxxxxxxxxx" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).error.code).toBe("unauthenticated");
    expect((await app.request("/v1/dashboard", { headers: auth })).status).toBe(200);
  });

  test("dashboard - built from the node records in the documented shape, host boards and histograms merged", async () => {
    const histograms = { "fetch.duration-seconds": { bounds: [0.5, 1], counts: [3, 1, 0], count: 4, sum: 1.9 } };
    await h.state.putNode(
      nodeRecord({
        id: "f1",
        heartbeatAt: h.clock.now,
        counters: { "fetch.pages": 10, "fetch.bytes": 25_000, "fetch.status.200": 9, "fetch.status.429": 1 },
        gauges: { queued: 5, inFlight: 1 },
        histograms,
        hosts: {
          board: {
            slowest: [row("slow.test", { fetchMs: 900 })],
            throttled: [row("busy.test", { throttleMs: 4000, throttles: 1 })],
            parked: [],
          },
          politeness: { activeHosts: 2, throttledHosts: 1, parkedHosts: 0, largestGapMs: 9000, largestGapHost: "slow.test" },
        },
      }),
    );
    await h.state.putNode(
      nodeRecord({ id: "x1", role: "fetcher", heartbeatAt: h.clock.now, counters: { "fetcher.pages": 10 }, histograms }),
    );
    await h.rebalancer.tick();
    const d: any = await (await app.request("/v1/dashboard", { headers: auth })).json();
    expect(shapeProblems(d, ADMIN_OPENAPI.components.schemas.Dashboard, ADMIN_OPENAPI)).toEqual([]);
    expect(d.source).toBe("cluster");
    expect(d.totals).toMatchObject({ pages: 10, bytes: 25_000, queued: 5, inFlight: 1 });
    expect(d.outcomes).toMatchObject({ ok: 9, "4xx": 1 });
    expect(d.nodes.map((n: { id: string }) => n.id)).toEqual(["f1", "x1"]);
    expect(d.hosts.slowest.map((r: { host: string; node: string }) => `${r.host}@${r.node}`)).toEqual(["slow.test@f1"]);
    expect(d.hosts.throttled[0].host).toBe("busy.test");
    expect(d.politeness).toMatchObject({ throttledHosts: 1, largestGapMs: 9000, largestGapHost: "slow.test" });
    expect(d.histograms["fetch.duration-seconds"].count).toBe(8);
    expect(d.ring.regions.map((r: { region: string }) => r.region)).toEqual(["eu", "us"]);
    expect(d.ring.regions[1].owners.every((o: string) => o === "f1")).toBe(true);

    // /v1/nodes keeps to its documented Node shape: the boards and histograms are the dashboard's.
    const nodes = ((await (await app.request("/v1/nodes", { headers: auth })).json()) as any).nodes;
    expect(nodes[0].hosts).toBeUndefined();
    expect(nodes[0].histograms).toBeUndefined();
  });

  test("dashboard - lists the crawl jobs with their state and the live frontier nodes' counts", async () => {
    const post = (path: string, body: unknown) =>
      app.request(path, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });
    await post("/v1/jobs", { id: "news", maxPages: 20 });
    await post("/v1/jobs", { id: "blogs" });
    await post("/v1/jobs/blogs/cancel", {});
    await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now, jobs: { "1": { pages: 7, errors: 1, queued: 4 } } }));
    const d: any = await (await app.request("/v1/dashboard", { headers: auth })).json();
    expect(shapeProblems(d, ADMIN_OPENAPI.components.schemas.Dashboard, ADMIN_OPENAPI)).toEqual([]);
    expect(d.jobs).toEqual({
      rows: [
        { id: "default", state: "running", pages: 0, maxPages: 0, queued: 0, errors: 0, reason: null },
        { id: "news", state: "running", pages: 7, maxPages: 20, queued: 4, errors: 1, reason: null },
        { id: "blogs", state: "cancelled", pages: 0, maxPages: 0, queued: 0, errors: 0, reason: "cancelled" },
      ],
      more: 0,
    });
  });
});
