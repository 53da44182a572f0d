import { describe, expect, test } from "bun:test";
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
});
