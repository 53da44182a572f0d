/**
 * Writes deploy/grafana/crawler.json, the Grafana dashboard of a crawl (a cluster or `crawl --http`), from
 * the panel list below, so the JSON stays reviewable as code and reproducible by one command
 * (`bun run grafana:board`; `--check` fails when the committed file differs). Every query reads metrics
 * the processes export (tests/e2e/dashboard checks each name against a running cluster and crawl):
 * frontier metrics (`crawl` and frontier nodes alike), fetch nodes' `crawler_fetcher_*` and the
 * coordinator's `crawler_cluster_*`. Histogram panels use histogram_quantile over the buckets of
 * core/stats/histogram-buckets.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Target {
  expr: string;
  legendFormat: string;
}
interface Panel {
  title: string;
  unit: string;
  targets: Target[];
  description?: string;
}

const q = (quantile: number, metric: string, by = "") =>
  `histogram_quantile(${quantile}, sum by (le${by ? `, ${by}` : ""}) (rate(${metric}_bucket[$__rate_interval])))`;
const quantiles = (metric: string): Target[] =>
  [0.5, 0.9, 0.99].map((p) => ({ expr: q(p, metric), legendFormat: `p${Math.round(p * 100)}` }));

const ROWS: Array<{ title: string; panels: Panel[] }> = [
  {
    title: "Throughput",
    panels: [
      {
        title: "Pages/s",
        unit: "reqps",
        targets: [{ expr: "sum(rate(crawler_fetch_pages_total[$__rate_interval]))", legendFormat: "pages/s" }],
      },
      {
        title: "Bytes stored/s",
        unit: "Bps",
        targets: [{ expr: "sum(rate(crawler_fetch_bytes_total[$__rate_interval]))", legendFormat: "bytes/s" }],
      },
      {
        title: "Fetch outcomes/s",
        unit: "reqps",
        targets: [
          ...["2", "3", "4", "5"].map((c) => ({
            expr: `sum(rate({__name__=~"crawler_fetch_status_${c}.._total"}[$__rate_interval]))`,
            legendFormat: `${c}xx`,
          })),
          { expr: 'sum(rate({__name__=~"crawler_fetch_network_error_.+_total"}[$__rate_interval]))', legendFormat: "network errors" },
          { expr: "sum(rate(crawler_robots_disallowed_total[$__rate_interval]))", legendFormat: "robots-denied" },
        ],
      },
    ],
  },
  {
    title: "Distributions",
    panels: [
      { title: "Fetch duration", unit: "s", targets: quantiles("crawler_fetch_duration_seconds") },
      { title: "Page size", unit: "bytes", targets: quantiles("crawler_fetch_page_bytes") },
      {
        title: "Queue wait (queued to handed out)",
        unit: "s",
        targets: quantiles("crawler_frontier_queue_wait_seconds"),
      },
      {
        title: "Gap waited",
        unit: "s",
        description: "How long requests waited for their host's politeness gap (engine/frontier/scheduling.ts)",
        targets: quantiles("crawler_politeness_gap_wait_seconds"),
      },
    ],
  },
  {
    title: "Politeness",
    panels: [
      {
        title: "Requests that waited for a gap/s",
        unit: "reqps",
        targets: [{ expr: "sum(rate(crawler_politeness_gap_wait_seconds_count[$__rate_interval]))", legendFormat: "waited" }],
      },
      {
        title: "Throttled and parked hosts",
        unit: "short",
        targets: [
          { expr: "sum(crawler_hosts_throttled)", legendFormat: "throttled (429/503)" },
          { expr: "sum(crawler_hosts_parked)", legendFormat: "parked (robots.txt 5xx)" },
        ],
      },
      { title: "Largest gap", unit: "s", targets: [{ expr: "max(crawler_largest_gap_seconds)", legendFormat: "largest gap" }] },
    ],
  },
  {
    title: "Frontier",
    panels: [
      { title: "Queued URLs by node", unit: "short", targets: [{ expr: "sum by (node) (crawler_queued)", legendFormat: "{{node}}" }] },
      { title: "In flight by node", unit: "short", targets: [{ expr: "sum by (node) (crawler_in_flight)", legendFormat: "{{node}}" }] },
      {
        title: "Active hosts by node",
        unit: "short",
        targets: [{ expr: "sum by (node) (crawler_active_hosts)", legendFormat: "{{node}}" }],
      },
    ],
  },
  {
    title: "Fetch nodes and cluster",
    panels: [
      {
        title: "Pages/s by fetch node",
        unit: "reqps",
        targets: [{ expr: "sum by (node) (rate(crawler_fetcher_pages_total[$__rate_interval]))", legendFormat: "{{node}}" }],
      },
      {
        title: "Fetch duration p90 by fetch node",
        unit: "s",
        targets: [{ expr: q(0.9, "crawler_fetcher_duration_seconds", "node"), legendFormat: "{{node}}" }],
      },
      {
        title: "Cluster nodes",
        unit: "short",
        targets: [
          { expr: "max(crawler_cluster_frontier_nodes)", legendFormat: "frontier nodes" },
          { expr: "max(crawler_cluster_fetch_nodes)", legendFormat: "fetch nodes" },
          { expr: "max(crawler_cluster_dead_nodes)", legendFormat: "dead nodes" },
        ],
      },
    ],
  },
];

function board(): object {
  const panels: object[] = [];
  let id = 1;
  let y = 0;
  for (const row of ROWS) {
    panels.push({ type: "row", title: row.title, id: id++, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y: y++ }, panels: [] });
    const w = Math.floor(24 / row.panels.length);
    row.panels.forEach((p, i) => {
      panels.push({
        type: "timeseries",
        title: p.title,
        ...(p.description ? { description: p.description } : {}),
        id: id++,
        datasource: { type: "prometheus", uid: "${datasource}" },
        gridPos: { h: 8, w, x: i * w, y },
        fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
        options: { legend: { displayMode: "list", placement: "bottom" }, tooltip: { mode: "multi" } },
        targets: p.targets.map((t, j) => ({
          refId: String.fromCharCode(65 + j),
          datasource: { type: "prometheus", uid: "${datasource}" },
          expr: t.expr,
          legendFormat: t.legendFormat,
        })),
      });
    });
    y += 8;
  }
  return {
    title: "Crawler",
    uid: "crawler",
    description:
      "A crawl at a glance: throughput, outcomes, distributions, politeness, frontier and fetch nodes (crawl --http or a cluster)",
    tags: ["crawler"],
    schemaVersion: 39,
    version: 1,
    editable: true,
    time: { from: "now-1h", to: "now" },
    refresh: "10s",
    templating: {
      list: [{ name: "datasource", type: "datasource", query: "prometheus", label: "Prometheus", current: {} }],
    },
    panels,
  };
}

const out = join(import.meta.dir, "..", "deploy", "grafana", "crawler.json");
const text = `${JSON.stringify(board(), null, 2)}\n`;
if (process.argv.includes("--check")) {
  // Compared as data: the formatter (biome) may lay the committed JSON out its own way.
  let current: unknown;
  try {
    current = JSON.parse(readFileSync(out, "utf8"));
  } catch {}
  if (JSON.stringify(current) !== JSON.stringify(board())) {
    console.error("deploy/grafana/crawler.json is stale: run bun run grafana:board");
    process.exit(1);
  }
  console.log("deploy/grafana/crawler.json is current");
} else {
  writeFileSync(out, text);
  console.log("wrote deploy/grafana/crawler.json");
}
