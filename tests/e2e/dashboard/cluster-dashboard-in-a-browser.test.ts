/**
 * The coordinator's dashboard in a real browser (Debian's Chromium through playwright-core), over a local
 * cluster (`cluster up`: 2 frontier nodes, 2 fetch nodes) crawling the test web: a wrong token is refused,
 * the right one opens a page with no console error whose figures move while the cluster crawls, which lists
 * every node and the ring, whose host box finds a host on the frontier node that owns it and whose URL box
 * explains a fetched URL; screenshots are saved under .out/screenshots/ (the whole page, and the window,
 * which docs/dashboard.png copies). Then every metric the Grafana board queries is one the cluster's
 * processes export (each node's /metrics at its record's address, the coordinator's included).
 */
import { describe, expect, test } from "bun:test";
import { launchBrowser } from "../../support/browser.ts";
import { exportedNames, missingFromBoard } from "../../support/grafana.ts";
import { ownerOf, useCluster, waitUntil } from "../cluster/harness.ts";
import {
  explainUrl,
  expectWrongTokenRefused,
  searchHost,
  signIn,
  tableRows,
  tile,
  waitForPage,
  waitForPagesAbove,
  waitForText,
} from "./page.ts";

const cluster = useCluster();

describe("cluster dashboard", () => {
  test("the coordinator's dashboard is live in a browser, lists nodes and ring, finds a host, refuses a wrong token; the Grafana board reads exported metrics", async () => {
    const web = await cluster.web({ hosts: 6, pagesPerHost: 60, linksPerPage: 6, pageBytes: 3000, special: true });
    const c = await cluster.up({ web, frontierArgs: ["--min-gap", "500ms"] });
    await c.seed([
      ...["site0.test", "site1.test", "site2.test", "site3.test", "site4.test", "site5.test"].map((host) => web.url(host)),
      ...["ratelimit.test", "robots-500.test", "robots-unreachable.test", "redirects.test", "robots-404.test", "slow.test"].map((host) =>
        web.url(host),
      ),
    ]);
    // A crawl job of its own, cancelled: the page lists it after default, in both modes (the crawl test has a paused one).
    const job = (path: string, body: unknown) =>
      c.admin(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await job("/v1/jobs", { id: "news", seeds: [web.url("site0.test", "/page/50")], maxPages: 20 })).status).toBe(201);
    expect((await job("/v1/jobs/news/cancel", {})).status).toBe(200);
    const dashboard = `${c.info.adminUrl}/dashboard`;
    const browser = await launchBrowser();
    try {
      const wrong = await browser.open();
      await expectWrongTokenRefused(wrong.page, dashboard);

      const { page, errors } = await browser.open();
      await signIn(page, dashboard, c.info.token);
      expect(await page.textContent("#source")).toBe("cluster");
      const first = await tile(page, "pages-total");
      await waitForPagesAbove(page, first);
      expect(c.proc.exit()).toBeUndefined();

      // Every node by region and role, live; the ring of the one region with both frontier nodes as owners.
      const nodeLine = (r: string[]) => `${r[1]} ${r[2]} ${r[3]}`;
      let nodes: string[][] = [];
      await waitForPage(page, "the nodes table to list five live nodes", async () => {
        nodes = await tableRows(page, "nodes");
        return nodes.length === 5 && nodes.every((r) => r[3] === "live");
      });
      expect(nodes.map(nodeLine)).toEqual([
        "coordinator-1 coordinator live",
        "frontier-1 frontier live",
        "frontier-2 frontier live",
        "fetch-1 fetcher live",
        "fetch-2 fetcher live",
      ]);
      // cluster up gives a new DIR 8 partitions per frontier node, at least 16.
      expect(await page.$$eval("#ring .ring-cells span", (cells) => cells.length)).toBe(16);
      await waitForText(page, "ring", "frontier-1: ");
      await waitForText(page, "ring", "frontier-2: ");
      await page.waitForSelector("[data-chart=pages] polyline");
      await waitForText(page, "jobs", "news");
      expect((await tableRows(page, "jobs")).map((r) => [r[0], r[1], r[5]])).toEqual([
        ["default", "running", ""],
        ["news", "cancelled", "cancelled"],
      ]);

      // The host box asks the frontier node that owns the host's partition.
      const host = await searchHost(page, "site0.test");
      expect(host["host"]).toBe("site0.test");
      expect(host["owner"]).toBe(ownerOf(await c.ring(), "site0.test"));
      expect(Number(host["fetches"])).toBeGreaterThan(0);
      const url = await explainUrl(page, web.url("site0.test"));
      expect(url).toMatchObject({ normalized: "http://site0.test/", state: "fetched", seen: "true" });
      await waitForText(page, "hosts-parked", "robots-");

      await browser.screenshot(page, "cluster-dashboard");
      // What the window shows: docs/dashboard.png, the README's picture, is a copy of this one.
      await page.locator("header").scrollIntoViewIfNeeded();
      await browser.screenshot(page, "cluster-dashboard-window", { fullPage: false });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }

    // The Grafana board queries only what the processes export: the union of every node's /metrics.
    let missing: string[] = [];
    await waitUntil(
      async () => {
        const names = new Set<string>();
        for (const n of await c.nodes()) {
          const res = await fetch(`${n.httpAddress}/metrics`, { signal: AbortSignal.timeout(10_000) });
          if (res.status !== 200) return false;
          for (const name of exportedNames(await res.text())) names.add(name);
        }
        missing = missingFromBoard(names);
        return missing.length === 0;
      },
      {
        timeoutMs: 120_000,
        what: "the cluster's processes to export every metric the Grafana board queries",
        detail: () => missing.join("; "),
        procs: [c.proc],
      },
    );
    expect(missing).toEqual([]);
  }, 300_000);
});
