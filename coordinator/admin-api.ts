/**
 * The admin HTTP API (Hono) for other services: `/healthz`, `/readyz`, `/metrics` (the health app of
 * adapters/http over the cluster totals) and the `/v1/` routes below, JSON in and out, described by the
 * OpenAPI document beside it (admin-openapi.ts) at `/v1/openapi.json`. Every route but /healthz and /readyz
 * needs `Authorization: Bearer <token>` (401 with WWW-Authenticate otherwise). Handlers throw the project's
 * errors; `onError` is the one place they become HTTP statuses (400 bad input, 401, 404 nobody owns the
 * host, 409 wrong state, 503 owner or bus unreachable, 500 for anything else, with a generic message).
 *
 *   GET  /v1/ring                 the ring and its revision
 *   GET  /v1/nodes                every node with its state
 *   GET  /v1/stats                cluster totals (ClusterStats.read, as gRPC GetStatus)
 *   POST /v1/seeds                {"urls": [...]} → {accepted, rejected[]}
 *   GET  /v1/hosts/:host          host state from its frontier node
 *   POST /v1/hosts/:host/pause    pause the host
 *   POST /v1/hosts/:host/resume   resume the host
 *   GET  /v1/urls/explain?url=    explain a URL
 */
import { errorFields } from "../kit/log/index.ts";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { healthApp } from "../adapters/http/index.ts";
import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
} from "../core/errors/index.ts";
import { ADMIN_OPENAPI } from "./admin-openapi.ts";
import { tokenMatches } from "./auth.ts";
import type { CoordinatorServices } from "./services.ts";
import type { ClusterTotals } from "./stats.ts";
import { parseJsonBody, requiredQuery, seedsRequest } from "./validate.ts";

export interface AdminApiOptions {
  token: string;
  maxSeedsPerRequest: number;
}

const PUBLIC_PATHS = new Set(["/healthz", "/readyz"]);
const REALM = "crawler";

export function adminApp(services: CoordinatorServices, opts: AdminApiOptions): Hono {
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error, services));
  app.notFound((c) => c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404));
  app.use("*", bearerAuth(opts.token));

  app.route(
    "/",
    healthApp({
      ready: services.ready,
      metrics: async () => clusterMetrics(await services.stats.read()),
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
      nodes: view.members.map((m) => ({ ...m.record, state: m.state, heartbeatAgeMs: m.heartbeatAgeMs })),
    });
  });

  app.get("/v1/stats", async (c) => c.json(await services.stats.read()));

  app.post("/v1/seeds", async (c) => {
    const body = seedsRequest(parseJsonBody(await c.req.text(), c.req.header("content-type")), opts.maxSeedsPerRequest);
    return c.json(await services.seeds.add(body.urls));
  });

  app.get("/v1/hosts/:host", async (c) => c.json({ host: plain(await services.routing.getHost(c.req.param("host"))) }));
  app.post("/v1/hosts/:host/pause", async (c) => c.json({ host: plain(await services.routing.setHostPaused(c.req.param("host"), true)) }));
  app.post("/v1/hosts/:host/resume", async (c) =>
    c.json({ host: plain(await services.routing.setHostPaused(c.req.param("host"), false)) }),
  );

  app.get("/v1/urls/explain", async (c) => {
    const url = requiredQuery(c.req.query("url"), "url");
    return c.json({ explanation: plain(await services.routing.explainUrl(url)) });
  });

  return app;
}

/** Bearer-token check on every path except the health probes. */
function bearerAuth(token: string): MiddlewareHandler {
  return async function requireBearerToken(c, next) {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      c.header("WWW-Authenticate", `Bearer realm="${REALM}"`);
      return c.json({ error: { code: "unauthenticated", message: "missing bearer token: send Authorization: Bearer <token>" } }, 401);
    }
    if (!tokenMatches(match[1]!, token)) {
      c.header("WWW-Authenticate", `Bearer realm="${REALM}", error="invalid_token"`);
      return c.json({ error: { code: "unauthenticated", message: "invalid bearer token" } }, 401);
    }
    return next();
  };
}

function errorResponse(c: Context, error: unknown, services: CoordinatorServices): Response {
  const send = (status: 400 | 401 | 404 | 409 | 503, code: string, message: string) => c.json({ error: { code, message } }, status);
  if (error instanceof InvalidArgumentError) return send(400, "invalid_argument", error.message);
  if (error instanceof UnauthenticatedError) {
    c.header("WWW-Authenticate", `Bearer realm="${REALM}"`);
    return send(401, "unauthenticated", error.message);
  }
  if (error instanceof NotFoundError) return send(404, "not_found", error.message);
  if (error instanceof FailedPreconditionError) return send(409, "failed_precondition", error.message);
  if (error instanceof UnavailableError) return send(503, "unavailable", error.message);
  services.log.error("internal error in an admin API call", errorFields(error, { method: c.req.method, path: c.req.path }));
  return c.json({ error: { code: "internal", message: "internal error" } }, 500);
}

/** The coordinator's /metrics: cluster totals, named crawler_cluster_* so they never mix with per-node series. */
function clusterMetrics(t: ClusterTotals): { counters: Record<string, number>; gauges: Record<string, number> } {
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
  };
  return { counters, gauges };
}

/** The generated messages hold int64 fields as bigint, which JSON cannot carry; ms and counts fit a number. */
function plain<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v)));
}
