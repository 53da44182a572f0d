/**
 * The one rule for health and metrics, with a metrics token set for the whole cluster (CRAWL_METRICS_TOKEN,
 * read by every role): on every node, the coordinator included, `/healthz` and `/readyz` stay open, and
 * `/metrics` answers only the metrics token, not the admin token and not nothing; the metrics token opens
 * nothing else of the admin API.
 */
import { describe, expect, test } from "bun:test";
import { useCluster } from "./harness.ts";

const cluster = useCluster();
const METRICS_TOKEN = "metrics-token-for-the-e2e-0001";

describe("cluster: /metrics with a metrics token", () => {
  test("every node's /metrics needs the metrics token, and /healthz and /readyz stay open", async () => {
    const web = await cluster.web({ hosts: 1 });
    const c = await cluster.up({ web, env: { CRAWL_METRICS_TOKEN: METRICS_TOKEN } });
    const nodes = await c.nodes();
    expect(nodes.map((n) => n.role).sort()).toEqual(["coordinator", "fetcher", "fetcher", "frontier", "frontier"]);
    const get = (url: string, token?: string) =>
      fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(5_000) });
    for (const n of nodes) {
      for (const path of ["/healthz", "/readyz"])
        expect({ node: n.id, path, status: (await get(`${n.httpAddress}${path}`)).status }).toEqual({ node: n.id, path, status: 200 });
      const none = await get(`${n.httpAddress}/metrics`);
      expect({ node: n.id, status: none.status, challenge: none.headers.get("www-authenticate")?.startsWith("Bearer") }).toEqual({
        node: n.id,
        status: 401,
        challenge: true,
      });
      expect({ node: n.id, status: (await get(`${n.httpAddress}/metrics`, c.info.token)).status }).toEqual({ node: n.id, status: 401 });
      const ok = await get(`${n.httpAddress}/metrics`, METRICS_TOKEN);
      expect({ node: n.id, status: ok.status }).toEqual({ node: n.id, status: 200 });
      expect(await ok.text()).toMatch(/^crawler_/m);
    }
    expect((await c.admin("/v1/stats", { auth: false, headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(401);
  }, 90_000);
});
