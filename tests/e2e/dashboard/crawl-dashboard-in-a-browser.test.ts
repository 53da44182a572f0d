/**
 * `crawl --http` in a real browser (Debian's Chromium through playwright-core): the dashboard loads with no
 * console error, its figures move while the crawl runs, the host box finds a host, a wrong token is
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
