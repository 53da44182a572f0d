/**
 * The admin HTTP API (Hono) for other services and for people: `/healthz`, `/readyz`, `/metrics` (the
 * health app of adapters/http over the cluster totals), the dashboard (adapters/http dashboardRoutes over
 * the cluster: the page at `/dashboard`, its data at `/v1/dashboard`, `/v1/hosts/:host`, `/v1/urls/explain`)
 * and the `/v1/` routes below, JSON in and out, described by the OpenAPI document beside it
 * (admin-openapi.ts) at `/v1/openapi.json`.
 *
 * Authentication comes first: every route but the health app's and the dashboard page's static files needs
 * `Authorization: Bearer <token>` with one of the admin tokens (401 with WWW-Authenticate otherwise), checked
 * before anything reads the body (serveHono reads it only when a handler asks), so a wrong token with a 10 MB
 * body gets 401, not 413. `/healthz` and `/readyz` are open; `/metrics` follows the health app's rule (open,
 * or its own metrics token). Every error is `{"error": {"code", "message"}}` with a stable code (adapters/http
 * json-api.ts): 400 `invalid_argument`, 401 `unauthenticated`, 404 `not_found` (unknown route too), 405
 * `method_not_allowed` (with Allow), 409 `failed_precondition`, 413 `payload_too_large`, 503 `unavailable` (503
 * `not_leader` on a standby coordinator, see `leaderOnly`),
 * 500 `internal` (a generic message). Messages quote at most a short prefix of any input.
 *
 *   GET  /dashboard               the dashboard page (open: it asks for the token and keeps it in the tab)
 *   GET  /v1/dashboard            the dashboard's data (core/dashboard)
 *   GET  /v1/ring                 the ring and its revision
 *   GET  /v1/nodes                every node with its state
 *   GET  /v1/stats                cluster totals (ClusterStats.read, as gRPC GetStatus)
 *   POST /v1/seeds                {"urls": [...], "feeds": [...]} → {accepted, rejected[]}
 *   GET  /v1/hosts/:host          host state from its frontier node
 *   POST /v1/hosts/:host/pause    pause the host
 *   POST /v1/hosts/:host/resume   resume the host
 *   GET  /v1/urls/explain?url=    explain a URL
 *   POST /v1/jobs                 create a crawl job (201, the job as GET answers it, with `seeds` outcome)
 *   GET  /v1/jobs                 every job
 *   GET  /v1/jobs/:id             one job: settings, state, reason, pages, queued, errors, times
 *   POST /v1/jobs/:id/pause|resume|cancel
 *   POST /v1/jobs/:id/seeds       {"urls": [...]} → {accepted, rejected[]}, into that job
 *   GET  /v1/jobs/:id/pages?after=&limit=   the job's feed records in order → {records, next}
 *   GET  /v1/captures?url=        where a URL's last captures are stored (the frontier node holding its host answers)
 */
import { errorFields } from "../kit/log/index.ts";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import {
  apiError,
  capturesRoutes,
  dashboardRoutes,
  healthApp,
  isDashboardAsset,
  jobRoutes,
  jobSeries,
  requireBearer,
  sendError,
  type DashboardSource,
} from "../adapters/http/index.ts";
import type { TokenSet } from "../core/auth/index.ts";
import { UnavailableError } from "../core/errors/index.ts";
import { captureFromProto, jsonOf } from "../proto/codec/index.ts";
import { ADMIN_OPENAPI } from "./admin-openapi.ts";
import { requireLeader, type CoordinatorServices } from "./services.ts";
import type { ClusterTotals } from "./stats.ts";
import { clip, parseJsonBody, seedsRequest } from "./validate.ts";

export interface AdminApiOptions {
  /** Accepted admin tokens: every one valid (two during a rotation). */
  tokens: TokenSet;
  /** Tokens /metrics accepts; absent or empty: /metrics is open. */
  metricsTokens?: TokenSet;
  maxSeedsPerRequest: number;
}

/** Paths the health app answers under its own rule. */
const HEALTH_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);
const REALM = "crawler";

/** Every route and its methods, for the 405 answers (the OpenAPI document lists the same). */
const ROUTES: ReadonlyArray<readonly [path: string, methods: string]> = [
  ["/healthz", "GET"],
  ["/readyz", "GET"],
  ["/metrics", "GET"],
  ["/v1/openapi.json", "GET"],
  ["/dashboard", "GET"],
  ["/dashboard/app.js", "GET"],
  ["/dashboard/app.css", "GET"],
  ["/dashboard/config.json", "GET"],
  ["/v1/dashboard", "GET"],
  ["/v1/ring", "GET"],
  ["/v1/nodes", "GET"],
  ["/v1/stats", "GET"],
  ["/v1/seeds", "POST"],
  ["/v1/hosts/:host", "GET"],
  ["/v1/hosts/:host/pause", "POST"],
  ["/v1/hosts/:host/resume", "POST"],
  ["/v1/urls/explain", "GET"],
  ["/v1/jobs", "GET, POST"],
  ["/v1/jobs/:id", "GET"],
  ["/v1/jobs/:id/pause", "POST"],
  ["/v1/jobs/:id/resume", "POST"],
  ["/v1/jobs/:id/cancel", "POST"],
  ["/v1/jobs/:id/seeds", "POST"],
  ["/v1/jobs/:id/pages", "GET"],
  ["/v1/captures", "GET"],
];

export function adminApp(services: CoordinatorServices, opts: AdminApiOptions): Hono {
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error, services));
  app.notFound((c) => sendError(c, 404, "not_found", `no route ${clip(c.req.method, 16)} ${clip(c.req.path)}`));
  app.use(
    "*",
    requireBearer(opts.tokens, REALM, (path) => HEALTH_PATHS.has(path) || isDashboardAsset(path)),
  );
  app.use("/v1/*", leaderOnly(services));

  app.route(
    "/",
    healthApp({
      ready: services.ready,
      metrics: async () => ({
        ...clusterMetrics(await services.stats.read(), services.isLeader()),
        series: jobSeries(await services.jobs.list(), "cluster.job"),
      }),
      metricsTokens: opts.metricsTokens,
    }),
  );

  app.get("/v1/openapi.json", (c) => c.json(ADMIN_OPENAPI));

  app.get("/v1/ring", async (c) => {
    const stored = await services.state.getRing();
    if (!stored) throw new UnavailableError("no ring yet: no coordinator has taken the lease and written one");
    return c.json({ ...stored.ring, revision: stored.revision });
  });

  app.get("/v1/nodes", async (c) => {
    const view = await services.membership.view();
    return c.json({
      // Histograms and host boards stay out: they are the dashboard's (/v1/dashboard), and crawlctl nodes shows neither.
      nodes: view.members.map(({ record: { histograms: _h, hosts: _b, ...record }, state, heartbeatAgeMs }) => ({
        ...record,
        state,
        heartbeatAgeMs,
      })),
    });
  });

  app.get("/v1/stats", async (c) => c.json(await services.stats.read()));

  app.post("/v1/seeds", async (c) => {
    const body = seedsRequest(parseJsonBody(await c.req.text(), c.req.header("content-type")), opts.maxSeedsPerRequest);
    return c.json(await services.seeds.add(body.urls, 0, body.feeds));
  });

  app.route("/", jobRoutes(services.jobs, services.feed, opts.maxSeedsPerRequest));

  // GET /v1/dashboard, /v1/hosts/:host and /v1/urls/explain, and the page: the routes crawl --http serves too.
  app.route("/", dashboardRoutes(clusterSource(services), { tokenRequired: true }));
  app.route(
    "/",
    capturesRoutes(async (url, limit) => (await services.routing.listCaptures(url, limit)).captures.map(captureFromProto)),
  );
  app.post("/v1/hosts/:host/pause", async (c) => c.json({ host: jsonOf(await services.routing.setHostPaused(c.req.param("host"), true)) }));
  app.post("/v1/hosts/:host/resume", async (c) =>
    c.json({ host: jsonOf(await services.routing.setHostPaused(c.req.param("host"), false)) }),
  );

  // Registered last, so they answer only a method no route above took.
  for (const [path, methods] of ROUTES) {
    app.all(path, (c) => {
      c.header("Allow", methods);
      return sendError(c, 405, "method_not_allowed", `${clip(c.req.method, 16)} is not allowed on ${path}; use ${methods}`);
    });
  }
  return app;
}

/**
 * Only the lease holder serves `/v1/` (services.ts, `requireLeader`); a standby answers 503 with code
 * `not_leader` and the leader's id when known, so a client with several base URLs asks the next one.
 * The health probes and /metrics stay open on a standby: it is alive, not ready, and its totals are the
 * same numbers (the gauge `coordinator.leader` tells the two apart). The OpenAPI document is served too.
 */
function leaderOnly(services: CoordinatorServices): MiddlewareHandler {
  return async function requireLease(c, next) {
    if (c.req.path === "/v1/openapi.json") return next();
    await requireLeader(services);
    return next();
  };
}

function errorResponse(c: Context, error: unknown, services: CoordinatorServices): Response {
  return apiError(c, error, REALM, (e) =>
    services.log.error("internal error in an admin API call", errorFields(e, { method: c.req.method, path: clip(c.req.path) })),
  );
}

/** The dashboard's data from the cluster: the records and ring (ClusterDashboard), hosts and URLs through routing. */
function clusterSource(services: CoordinatorServices): DashboardSource {
  return {
    kind: "cluster",
    dashboard: () => services.dashboard.read(),
    host: async (host) => jsonOf(await services.routing.getHost(host)),
    explainUrl: async (url) => jsonOf(await services.routing.explainUrl(url)),
  };
}

/** The coordinator's /metrics: cluster totals, named crawler_cluster_* so they never mix with per-node series. */
function clusterMetrics(t: ClusterTotals, leader: boolean): { counters: Record<string, number>; gauges: Record<string, number> } {
  const counters: Record<string, number> = {};
  for (const [name, value] of Object.entries(t.counters)) counters[`cluster.${name}`] = value;
  counters["cluster.pages.fetched"] = t.pagesFetched;
  counters["cluster.errors"] = t.errors;
  const gauges: Record<string, number> = {
    "cluster.pagesPerSecond": t.pagesPerSecond,
    "cluster.queued": t.queued,
    "cluster.inFlight": t.inFlight,
    "cluster.frontierNodes": t.frontierNodes,
    "cluster.fetchNodes": t.fetchNodes,
    "cluster.deadNodes": t.deadNodes,
    "coordinator.leader": leader ? 1 : 0,
  };
  return { counters, gauges };
}
