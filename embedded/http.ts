/**
 * `crawl --http`: what a person or Prometheus sees of a running crawl, on one listener (loopback unless
 * told otherwise):
 *
 *   /healthz, /readyz, /metrics   the health app every cluster node serves (adapters/http): /metrics carries
 *                                 the frontier's counters, gauges and histograms under the same names as a
 *                                 frontier node's (engine/frontier frontierGauges), so one Grafana board reads
 *                                 both, and the crawl jobs' series (crawler_job_pages_total{job=...}, as the
 *                                 coordinator's crawler_cluster_job_*); open unless --metrics-token is set
 *   /dashboard, /v1/dashboard,    the dashboard (adapters/http dashboardRoutes, the coordinator's too), over
 *   /v1/hosts/:host,              this crawl's one frontier: the crawl shows as a cluster of one node
 *   /v1/urls/explain              ("crawl"), with no ring; open unless --admin-token is set, then the page
 *                                 asks for the token like the coordinator's
 *   /v1/captures?url=             where a URL's last captures are stored (adapters/http captures-routes.ts),
 *                                 from this crawl's store; the same token rule
 *   /v1/jobs...                   crawl jobs and their feed of fetched pages: the admin API's routes, bodies,
 *                                 answers and errors (adapters/http job-routes.ts over core/jobs JobService),
 *                                 over this crawl's registry and feed (embedded/jobs.ts, pages.sqlite); the
 *                                 same token rule, and the admin API's body limit (413 past it)
 *   /                             redirects to /dashboard
 *
 * Errors are the admin API's JSON errors (adapters/http json-api.ts). The rate chart is sampled every two
 * seconds from the frontier's running totals while the server runs.
 */
import { Hono } from "hono";
import { hostKeyOfArgument } from "../core/addressing/index.ts";
import type { TokenSet } from "../core/auth/index.ts";
import type { NodeRecord } from "../core/cluster/index.ts";
import { buildDashboard, RateHistory, runningTotals, type Dashboard } from "../core/dashboard/index.ts";
import { captureLookup } from "../core/captures/index.ts";
import { InvalidArgumentError, NotFoundError } from "../core/errors/index.ts";
import { hostKeyOf, isNotAUrl, MAX_URL_LENGTH, normalizeUrl } from "../core/url/index.ts";
import type { HostPort } from "../core/net/index.ts";
import { ADDRESS_BOARD_ROWS as ADDRESS_ROWS, type AddressBoard } from "../core/politeness/index.ts";
import {
  API_MAX_BODY_BYTES,
  apiError,
  capturesRoutes,
  clip,
  dashboardRoutes,
  healthApp,
  isDashboardAsset,
  jobRoutes,
  jobSeries,
  requireBearer,
  sendError,
  serveHono,
  type DashboardSource,
  type RunningHttpServer,
} from "../adapters/http/index.ts";
import { frontierGauges, type Frontier } from "../engine/frontier/index.ts";
import type { ServerExplainer } from "../engine/fetch/index.ts";
import { hostInfoOf, jsonOf, serverFields, urlExplanation, urlExplanationOf } from "../proto/codec/index.ts";
import { errorFields, type Log } from "../kit/log/index.ts";
import type { JobService } from "../core/jobs/index.ts";
import type { PageFeed } from "../core/ports/index.ts";
import { CRAWL_MAX_SEEDS_PER_REQUEST } from "./jobs.ts";

/** The node id, role and region the crawl shows under on its dashboard and in its metrics' labels. */
export const CRAWL_NODE = { id: "crawl", region: "local" } as const;
const SAMPLE_INTERVAL_MS = 2_000;
const REALM = "crawl";
const HEALTH_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export interface CrawlHttpOptions {
  listen: HostPort;
  adminTokens: TokenSet;
  metricsTokens: TokenSet;
  frontier: Frontier;
  /** This crawl's jobs (embedded/jobs.ts) and its feed of fetched pages. */
  jobs: JobService;
  feed: PageFeed;
  partitions: number;
  /** True while the crawl loop runs (for /readyz). */
  running: () => boolean;
  startedAt: number;
  now: () => number;
  log: Log;
  /** Pages rendering at once at most (the `renderPool` gauge): --render-pool x fetch threads; 0 when nothing renders. */
  renderPool?: number;
  /** The cap per address's board: its busiest servers on the dashboard, its size as the `addressesTracked` gauge. */
  addresses?: AddressBoard;
  /** For `url explain`: the server a URL is capped under, and its state in the gate. */
  servers?: ServerExplainer;
}

export interface CrawlHttp {
  readonly server: RunningHttpServer;
  close(): Promise<void>;
}

export async function startCrawlHttp(opts: CrawlHttpOptions): Promise<CrawlHttp> {
  const dashboard = new CrawlDashboard(opts);
  const app = crawlApp(opts, dashboard);
  const server = await serveHono(app, {
    hostname: opts.listen.host,
    port: opts.listen.port,
    maxBodyBytes: API_MAX_BODY_BYTES,
    onError: (error) => opts.log.error("HTTP app error", errorFields(error)),
  });
  dashboard.sample();
  const sampler = setInterval(() => dashboard.sample(), SAMPLE_INTERVAL_MS);
  sampler.unref?.();
  return {
    server,
    async close() {
      clearInterval(sampler);
      await server.close();
    },
  };
}

/** The app alone (tests call it without a socket). */
export function crawlApp(opts: CrawlHttpOptions, dashboard = new CrawlDashboard(opts)): Hono {
  const app = new Hono();
  app.onError((error, c) =>
    apiError(c, error, REALM, (e) => opts.log.error("internal error in an HTTP call", errorFields(e, { path: clip(c.req.path) }))),
  );
  app.notFound((c) => sendError(c, 404, "not_found", `no route ${clip(c.req.method, 16)} ${clip(c.req.path)}`));
  app.use(
    "*",
    requireBearer(opts.adminTokens, REALM, (path) => path === "/" || HEALTH_PATHS.has(path) || isDashboardAsset(path)),
  );
  app.get("/", (c) => c.redirect("/dashboard"));
  app.route(
    "/",
    healthApp({
      ready: opts.running,
      metrics: async () => ({
        counters: opts.frontier.counters.toJSON(),
        gauges: { ...frontierGauges(opts.frontier), renderPool: opts.renderPool ?? 0, addressesTracked: opts.addresses?.size ?? 0 },
        histograms: opts.frontier.histograms.toJSON(),
        labels: { node: CRAWL_NODE.id, region: CRAWL_NODE.region },
        series: jobSeries(await opts.jobs.list(), "job"),
      }),
      metricsTokens: opts.metricsTokens,
    }),
  );
  app.route("/", dashboardRoutes(crawlSource(opts, dashboard), { tokenRequired: opts.adminTokens.size > 0 }));
  app.route(
    "/",
    capturesRoutes(async (input) => {
      const { url, host } = captureLookup(input);
      return opts.frontier.urlCaptures(url, host);
    }),
  );
  app.route("/", jobRoutes(opts.jobs, opts.feed, CRAWL_MAX_SEEDS_PER_REQUEST));
  return app;
}

/** The dashboard of one crawl: its frontier as the one frontier record of a cluster of one. */
export class CrawlDashboard {
  private readonly history = new RateHistory();

  constructor(private readonly opts: Pick<CrawlHttpOptions, "frontier" | "jobs" | "startedAt" | "now" | "renderPool" | "addresses">) {}

  sample(): void {
    const t = runningTotals([this.record()]);
    this.history.sample(this.opts.now(), t.pages, t.bytes);
  }

  async read(): Promise<Dashboard> {
    this.sample();
    const jobs = await this.opts.jobs.list();
    return buildDashboard({
      source: "crawl",
      at: this.opts.now(),
      members: [{ record: this.record(), state: "running", heartbeatAgeMs: 0, roleLabel: "crawl" }],
      jobs,
      rates: this.history.points(),
      current: this.history.current(),
    });
  }

  private record(): NodeRecord {
    const { frontier } = this.opts;
    return {
      id: CRAWL_NODE.id,
      role: "frontier",
      region: CRAWL_NODE.region,
      runtime: "bun",
      status: "active",
      grpcAddress: "",
      httpAddress: "",
      startedAt: this.opts.startedAt,
      heartbeatAt: this.opts.now(),
      partitions: [],
      counters: frontier.counters.toJSON(),
      gauges: { ...frontierGauges(frontier), renderPool: this.opts.renderPool ?? 0 },
      histograms: frontier.histograms.toJSON(),
      hosts: frontier.hostReport(),
      ...(this.opts.addresses ? { addresses: this.opts.addresses.top(ADDRESS_ROWS) } : {}),
    };
  }
}

/** Host and URL questions answered by this crawl's frontier, in the shapes the coordinator answers with. */
function crawlSource(opts: CrawlHttpOptions, dashboard: CrawlDashboard): DashboardSource {
  const where = { region: CRAWL_NODE.region, owner: CRAWL_NODE.id };
  return {
    kind: "crawl",
    dashboard: () => dashboard.read(),
    async host(raw) {
      const host = hostKeyOfArgument(raw);
      const view = opts.frontier.hostInfo(host);
      if (!view) throw new NotFoundError(`this crawl knows nothing about host ${clip(host)}`);
      return jsonOf(hostInfoOf(view, where));
    },
    async explainUrl(input) {
      if (input.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`url: longer than ${MAX_URL_LENGTH} characters`);
      const n = normalizeUrl(input);
      if (!n.ok) {
        if (isNotAUrl(n.reason)) throw new InvalidArgumentError(`url: not an absolute http(s) URL (${clip(n.reason)})`);
        return jsonOf(urlExplanation({ input, rejectedReason: n.reason, note: "rejected by normalization; it would never be crawled" }));
      }
      const host = hostKeyOf(n.url);
      const partition = opts.frontier.partitionOf(host);
      const explanation = urlExplanationOf(input, n.url, { ...where, host, partition }, opts.frontier.explainUrl(n.url, host));
      if (opts.servers) Object.assign(explanation, serverFields(await opts.servers.explain(n.url)));
      return jsonOf(explanation);
    },
  };
}
