import { describe, expect, test } from "bun:test";
import { TokenSet } from "../../core/auth/index.ts";
import { healthApp } from "./health.ts";

describe("health app", () => {
  test("health - /healthz answers 200 whatever readiness says", async () => {
    const app = healthApp({ ready: () => false, metrics: () => ({ counters: {} }) });
    expect((await app.request("/healthz")).status).toBe(200);
  });

  test("health - /readyz follows ready()", async () => {
    let ready = false;
    const app = healthApp({ ready: async () => ready, metrics: () => ({ counters: {} }) });
    expect((await app.request("/readyz")).status).toBe(503);
    ready = true;
    expect((await app.request("/readyz")).status).toBe(200);
  });

  test("health - /metrics serves Prometheus text of the snapshot", async () => {
    const app = healthApp({
      ready: () => true,
      metrics: () => ({ counters: { "fetch.status.200": 3 }, gauges: { inFlight: 2 }, labels: { node: "f1" } }),
    });
    const res = await app.request("/metrics");
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await res.text();
    expect(text).toContain('crawler_fetch_status_200_total{node="f1"} 3');
    expect(text).toContain('crawler_in_flight{node="f1"} 2');
  });

  test("health - with a metrics token, /metrics needs it (either of two during a rotation) and the probes stay open", async () => {
    const app = healthApp({
      ready: () => true,
      metrics: () => ({ counters: { pages: 1 } }),
      metricsTokens: new TokenSet(["metrics-token-new-0000", "metrics-token-old-0000"]),
    });
    expect((await app.request("/healthz")).status).toBe(200);
    expect((await app.request("/readyz")).status).toBe(200);
    const none = await app.request("/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
    expect(await none.json()).toEqual({ error: { code: "unauthenticated", message: expect.stringContaining("metrics token") } });
    const wrong = await app.request("/metrics", { headers: { authorization: "Bearer metrics-token-bad-0000" } });
    expect(wrong.status).toBe(401);
    for (const token of ["metrics-token-new-0000", "metrics-token-old-0000"]) {
      const res = await app.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("crawler_pages_total 1");
    }
  });

  test("health - without a metrics token /metrics is open", async () => {
    const app = healthApp({ ready: () => true, metrics: () => ({ counters: {} }), metricsTokens: new TokenSet([]) });
    expect((await app.request("/metrics")).status).toBe(200);
  });
});
