/**
 * The health app every node mounts: `GET /healthz` (the process answers: 200), `GET /readyz` (200 when
 * `ready()` says the node can do its work, else 503) and `GET /metrics` (Prometheus text of `metrics()`).
 * No authentication: these are for the orchestrator and the scraper, and reveal only counts. A node either
 * serves this app alone (`serveHono(healthApp(...))`) or mounts it in its own app (`app.route("/", ...)`).
 */
import { Hono } from "hono";
import { prometheusText, type MetricsSnapshot } from "./prometheus.ts";

export interface HealthSources {
  ready: () => boolean | Promise<boolean>;
  metrics: () => MetricsSnapshot | Promise<MetricsSnapshot>;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export function healthApp(sources: HealthSources): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => ((await sources.ready()) ? c.json({ status: "ready" }) : c.json({ status: "not-ready" }, 503)));
  app.get("/metrics", async (c) => {
    const m = await sources.metrics();
    return c.body(prometheusText(m.counters, m.gauges, m.labels), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  });
  return app;
}
