/**
 * `crawl --http` in a real browser (Debian's Chromium through playwright-core): the dashboard loads with no
 * console error, its figures move while the crawl runs, it lists the crawl jobs, the host box finds a host, a wrong token is
 * refused; a screenshot is saved under .out/screenshots/. Its /metrics serves every frontier metric the
 * Grafana board queries (the cluster test checks the rest of the board against the cluster's nodes).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { launchBrowser, type Browser } from "../../support/browser.ts";
import { boardQueries, exportedNames, missingFromBoard } from "../../support/grafana.ts";
import { waitUntil } from "../cluster/processes.ts";
import { useHarness, waitFor } from "../embedded/harness.ts";
import { explainUrl, expectWrongTokenRefused, searchHost, signIn, tableRows, tile, waitForPagesAbove, waitForText } from "./page.ts";

const h = useHarness();
const ADMIN_TOKEN = "crawl-dashboard-admin-token-1";
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe("crawl dashboard", () => {
  test("crawl --http: the dashboard is live in a browser, finds a host, refuses a wrong token; /metrics serves the board's frontier metrics", async () => {
    const web = await h.web({ hosts: 6, pagesPerHost: 80, linksPerPage: 6, pageBytes: 3000, special: true });
    const seeds = [
      ...["site0.test", "site1.test", "site2.test", "site3.test", "site4.test", "site5.test"].map((host) => web.url(host)),
      ...["ratelimit.test", "robots-500.test", "robots-unreachable.test", "redirects.test", "robots-404.test", "slow.test"].map((host) =>
        web.url(host),
      ),
    ];
    const out = h.tempDir();
    const run = h.crawl(
      [...seeds, "--out", out, "--proxy", web.proxyUrl, "--min-gap", "500ms", "--http", "127.0.0.1:0", "--admin-token", ADMIN_TOKEN],
      {
        out,
      },
    );
    let base = "";
    await waitFor(
      () => {
        const m = /"dashboard":"(http:\/\/127\.0\.0\.1:\d+)\/dashboard"/.exec(run.stderr());
        base = m?.[1] ?? "";
        return base !== "";
      },
      { timeoutMs: 60_000, what: "crawl to log its dashboard address", run },
    );
    const dashboard = `${base}/dashboard`;

    // A job of its own on two of the hosts, paused: the page lists it beside default.
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const created = await fetch(`${base}/v1/jobs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ id: "news", seeds: [web.url("site0.test", "/page/40"), web.url("site1.test", "/page/40")], maxPages: 30 }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/v1/jobs/news/pause`, { method: "POST", headers })).status).toBe(200);

    browser = await launchBrowser();
    const wrong = await browser.open();
    await expectWrongTokenRefused(wrong.page, dashboard);

    const { page, errors } = await browser.open();
    await signIn(page, dashboard, ADMIN_TOKEN);
    expect(await page.textContent("#source")).toBe("crawl");
    const first = await tile(page, "pages-total");
    const later = await waitForPagesAbove(page, first);
    expect(later).toBeGreaterThan(first);
    expect(run.exit()).toBeUndefined(); // it moved while the crawl ran
    const nodes = await tableRows(page, "nodes");
    expect(nodes.map((r) => [r[1], r[2], r[3]])).toEqual([["crawl", "crawl", "running"]]);
    await page.waitForSelector("[data-chart=pages] polyline");
    await waitForText(page, "jobs", "news");
    const jobs = await tableRows(page, "jobs");
    expect(jobs.map((r) => [r[0], r[1], r[2]])).toEqual([
      ["default", "running", expect.stringMatching(/^\d[\d,]*$/)],
      ["news", "paused", "0 / 30"],
    ]);
    expect(await page.textContent("#jobs-more")).toBe("");
    // Bounded: with 52 jobs the table keeps the first 50 and says how many more there are.
    for (let i = 1; i <= 50; i++) {
      const res = await fetch(`${base}/v1/jobs`, { method: "POST", headers, body: JSON.stringify({ id: `j${i}` }) });
      expect(res.status).toBe(201);
    }
    await waitForText(page, "jobs-more", "2 more");
    const bounded = await tableRows(page, "jobs");
    expect([bounded.length, bounded[0]![0], bounded[1]![0], bounded.at(-1)![0]]).toEqual([50, "default", "news", "j48"]);

    const host = await searchHost(page, "site0.test");
    expect(host).toMatchObject({ host: "site0.test", owner: "crawl" });
    expect(Number(host["fetches"])).toBeGreaterThan(0);
    const url = await explainUrl(page, web.url("site0.test"));
    expect(url).toMatchObject({ normalized: "http://site0.test/", state: "fetched", seen: "true" });
    // Through the proxy the cap per address is per registrable domain: explain names it, the host board lists the busiest.
    expect(url).toMatchObject({ server: "domain:site0.test", maxPerAddress: "2" });
    await waitForText(page, "hosts-addresses", "domain:");
    // Hosts whose robots.txt answered 500 or could not be read are parked, and the page lists them.
    await waitForText(page, "hosts-parked", "robots-");

    await browser.screenshot(page, "crawl-dashboard");
    expect(errors).toEqual([]);

    // Status classes and network errors the board plots by pattern come from the special hosts seeded above,
    // as their results come back: wait for them, then compare.
    const frontierQueries = boardQueries().filter((q) => !/crawler_(fetcher|cluster)_/.test(q.expr));
    expect(frontierQueries.length).toBeGreaterThan(10);
    let missing: string[] = [];
    await waitUntil(
      async () => {
        const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
        expect(res.status).toBe(200);
        missing = missingFromBoard(exportedNames(await res.text()), frontierQueries);
        return missing.length === 0;
      },
      {
        timeoutMs: 120_000,
        what: "crawl's /metrics to serve every frontier metric the Grafana board queries",
        detail: () => missing.join("; "),
      },
    );
    expect(missing).toEqual([]);
  }, 240_000);
});
