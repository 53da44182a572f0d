/**
 * The HTTP edge shared by every role: `serveHono` runs a fetch-style app over node:http (Bun, Node and
 * Deno alike), `healthApp` is the /healthz, /readyz, /metrics app every node serves, and `prometheusText`
 * formats counters, gauges and histograms for /metrics; json-api.ts holds the JSON APIs' error answers and
 * bearer check, dashboard/ the dashboard's page and routes and captures-routes.ts `/v1/captures` (coordinator
 * and `crawl --http` both); `AdminClient`
 * asks the coordinator's admin API at several base URLs (the leader answers). Imports no
 * gRPC and no runtime globals, so the fetch node can use it on Deno.
 */
export { BodyTooLargeError } from "./request-body.ts";
export { serveHono, DEFAULT_MAX_BODY_BYTES, type FetchApp, type RunningHttpServer, type ServeOptions } from "./serve.ts";
export { metricName, prometheusText, METRIC_PREFIX, type LabelledSample, type MetricsSnapshot } from "./prometheus.ts";
export { healthApp, PROMETHEUS_CONTENT_TYPE, type HealthSources } from "./health.ts";
export { AdminClient, parseBaseUrls, type AdminClientOptions } from "./admin-client.ts";
export { dashboardRoutes, isDashboardAsset, type DashboardRoutesOptions, type DashboardSource } from "./dashboard/routes.ts";
export { capturesRoutes, type CaptureLookup } from "./captures-routes.ts";
export {
  API_MAX_BODY_BYTES,
  apiError,
  clip,
  parseJsonBody,
  requireBearer,
  requiredQuery,
  sendError,
  type ErrorStatus,
} from "./json-api.ts";
export { jobRoutes } from "./job-routes.ts";
export { jobSeries } from "./job-series.ts";
