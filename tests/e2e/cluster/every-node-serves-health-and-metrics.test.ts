/**
 * Every node's own HTTP endpoint, at the address its record publishes (`/v1/nodes` httpAddress), under one
 * rule: `/healthz` and `/readyz` answer 200 without a token, and `/metrics` (no metrics token configured)
 * too: Prometheus text labelled with the node whose counters match its record (at idle, when nothing
 * moves). The coordinator's `/metrics` carries the cluster totals of `/v1/stats`, without the admin token.
 * With a metrics token: metrics-need-the-metrics-token-when-one-is-set.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { metricName } from "../../../adapters/http/prometheus.ts";
import { FetcherChoice } from "../../../core/cluster/index.ts";
import { useCluster, waitForIdle, type NodeView } from "./harness.ts";

const cluster = useCluster();

/** `name{labels} value` lines of Prometheus text, by metric name, for the sample labelled `node`. */
function samples(text: string, node?: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([a-z_][a-z0-9_]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m) continue;
    if (node && !(m[2] ?? "").includes(`node="${node}"`)) continue;
    out.set(m[1]!, Number(m[3]));
  }
  return out;
}

describe("cluster: node endpoints", () => {
  test("every node serves /healthz, /readyz and /metrics at the address in its record", async () => {
    // Four hosts, so that each fetch node has some: a host's tasks go to one fetch node, chosen by hashing
    // (site0 and site1 both go to fetch-1; site2 to fetch-2).
    const hosts = ["site0.test", "site1.test", "site2.test", "site3.test"];
    const choice = new FetcherChoice(["fetch-1", "fetch-2"]);
    expect(new Set(hosts.map((h) => choice.of(h)))).toEqual(new Set(["fetch-1", "fetch-2"]));
    const web = await cluster.web({ hosts: hosts.length, pagesPerHost: 4, linksPerPage: 4, pageBytes: 2000 });
    const c = await cluster.up({ web });
    await c.seed(hosts.map((h) => web.url(h)));
    const totals = await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });

    const nodes = await c.nodes();
    expect(nodes.map((n) => `${n.id} ${n.role}`)).toEqual([
      "coordinator-1 coordinator",
      "fetch-1 fetcher",
      "fetch-2 fetcher",
      "frontier-1 frontier",
      "frontier-2 frontier",
    ]);
    for (const n of nodes) {
      expect(n.httpAddress).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      for (const path of ["/healthz", "/readyz"]) {
        const res = await fetch(`${n.httpAddress}${path}`, { signal: AbortSignal.timeout(5_000) });
        expect({ node: n.id, path, status: res.status }).toEqual({ node: n.id, path, status: 200 });
      }
    }

    for (const n of nodes.filter((n) => n.role !== "coordinator")) {
      const res = await fetch(`${n.httpAddress}/metrics`, { signal: AbortSignal.timeout(5_000) });
      expect({ node: n.id, status: res.status }).toEqual({ node: n.id, status: 200 });
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      const metrics = samples(await res.text(), n.id);
      expect(metrics.size).toBeGreaterThan(0);
      // The node's counters, as its last heartbeat wrote them, are what it exposes (nothing moves at idle).
      const pageCounter = n.role === "frontier" ? "fetch.pages" : "fetcher.tasks.page";
      expect({ node: n.id, value: metrics.get(metricName(pageCounter, "counter")) ?? 0 }).toEqual({
        node: n.id,
        value: counter(n, pageCounter),
      });
      expect(counter(n, pageCounter)).toBeGreaterThan(0);
    }

    // The coordinator: cluster totals, open like every node's /metrics (the admin token guards /v1 only).
    const coordinator = nodes.find((n) => n.role === "coordinator")!;
    const res = await fetch(`${coordinator.httpAddress}/metrics`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    const cluster_ = samples(await res.text());
    expect(cluster_.get("crawler_cluster_pages_fetched_total")).toBe(totals.pagesFetched);
    expect(cluster_.get("crawler_cluster_queued")).toBe(0);
    expect(cluster_.get("crawler_cluster_frontier_nodes")).toBe(2);
    expect(cluster_.get("crawler_cluster_fetch_nodes")).toBe(2);
    // The sum over frontier nodes of their page counters is the cluster's pages fetched.
    const frontierPages = nodes.filter((n) => n.role === "frontier").reduce((sum, n) => sum + counter(n, "fetch.pages"), 0);
    expect(frontierPages).toBe(totals.pagesFetched);
  }, 90_000);
});

function counter(n: NodeView, name: string): number {
  return n.counters[name] ?? 0;
}
