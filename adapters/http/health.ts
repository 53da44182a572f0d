/**
 * The health app every process mounts, under one rule: `GET /healthz` (the process answers: 200) and
 * `GET /readyz` (200 when `ready()` says the node can do its work, else 503) are always open, for the
 * orchestrator; `GET /metrics` (Prometheus text of `metrics()`) is open unless a metrics token is
 * configured (`--metrics-token`), and then needs `Authorization: Bearer <metrics token>`. The metrics
 * token is never the admin token, so a scraper holds no right to change anything. A node either serves
 * this app alone (`serveHono(healthApp(...))`) or mounts it in its own app (`app.route("/", ...)`).
 */
import { Hono } from "hono";
import { bearerToken, type TokenSet } from "../../core/auth/index.ts";
import { prometheusText, type MetricsSnapshot } from "./prometheus.ts";

export interface HealthSources {
  ready: () => boolean | Promise<boolean>;
  metrics: () => MetricsSnapshot | Promise<MetricsSnapshot>;
  /** Tokens /metrics accepts; absent or empty: /metrics is open. */
  metricsTokens?: TokenSet;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
const REALM = "crawler-metrics";

export function healthApp(sources: HealthSources): Hono {
  const app = new Hono();
  const tokens = sources.metricsTokens;
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => ((await sources.ready()) ? c.json({ status: "ready" }) : c.json({ status: "not-ready" }, 503)));
  app.get("/metrics", async (c) => {
    if (tokens && tokens.size > 0) {
      const given = bearerToken(c.req.header("authorization"));
      if (given === undefined || !tokens.matches(given)) {
        c.header("WWW-Authenticate", `Bearer realm="${REALM}"${given === undefined ? "" : ', error="invalid_token"'}`);
        const message = given === undefined ? "missing bearer token: /metrics needs the metrics token" : "invalid metrics token";
        return c.json({ error: { code: "unauthenticated", message } }, 401);
      }
    }
    const m = await sources.metrics();
    return c.body(prometheusText(m.counters, m.gauges, m.labels, m.histograms, m.series), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  });
  return app;
}
