/**
 * Durability: a crawl killed with `kill -9` mid-run, or stopped with Ctrl-C, and then run again with the
 * same command finishes the job as if it had never stopped: the union of pages fetched is exactly the
 * expected set, no page is fetched twice (after kill -9, only pages in flight at the kill may be), and
 * politeness holds across the restart, since the checker sees every request of both runs.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { RequestRecord, TestWeb } from "../../testweb/index.ts";
import { readRecordAt } from "../../../engine/fetch/warc/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  parseSummary,
  probeRequests,
  queuedUrls,
  readCdxj,
  repeated,
  urlOf,
  useHarness,
  waitFor,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

// Longer than the crawler takes to start again (~300 ms here), so a resumed crawl that forgot when it
// last hit each host would break the gap, and the checker would see it.
const MIN_GAP_MS = 700;
const NORMAL_HOSTS = ["site0.test", "site1.test", "site2.test", "site3.test"];

async function normalWeb(): Promise<TestWeb> {
  return h.web({ hosts: 4, pagesPerHost: 6, linksPerPage: 8, pageBytes: 3000, special: true });
}

describe("crawl: durability", () => {
  test("after kill -9 the same command completes the crawl, refetching only what was in flight, politely", async () => {
    const web = await normalWeb();
    const seeds = NORMAL_HOSTS.map((host) => web.url(host));
    const expected = web.expectedPages(seeds);
    const out = h.tempDir();
    // hang.test holds its page open until the response timeout: a fetch certainly in flight at the kill.
    const argv = crawlArgs(web, [...seeds, web.url("hang.test")], out, [
      "--min-gap",
      `${MIN_GAP_MS}ms`,
      "--response-timeout",
      "4s",
      "--connect-timeout",
      "1s",
      "--max-duration",
      "60s",
    ]);
    const first = h.crawl(argv, { out });
    const hangOpen = () => web.requestsTo("hang.test").some((r) => r.path === "/" && r.endedAt === Infinity);
    await waitFor(() => hangOpen() && pageRequests(web, NORMAL_HOSTS).length >= expected.pages.size / 4, {
      timeoutMs: 20_000,
      what: "a quarter of the pages fetched while hang.test's page is in flight",
      run: first,
    });
    first.signal("SIGKILL");
    const killed = await first.waitExit(5_000);
    expect(killed.signal).toBe("SIGKILL");
    const beforeKill = web.requests.slice();
    // The request to each host that may have been in flight: the last one before the kill.
    const lastPerHost = new Map<string, RequestRecord>();
    for (const r of beforeKill) lastPerHost.set(r.host, r);
    expect(missing(expected.pages, fetchCounts(pageRequests(web, NORMAL_HOSTS)).keys()).length).toBeGreaterThan(0);

    const second = h.crawl(argv, { out });
    const fetched = () => fetchCounts(pageRequests(web, NORMAL_HOSTS)).keys();
    const hangRetried = () => web.requestsTo("hang.test").filter((r) => r.path === "/" && r.endedAt < Infinity).length === 2;
    // Idle on the normal hosts: hang.test, after its second timeout, backs off before its /sitemap.xml probe.
    await waitUntilIdle(second, () => hangRetried() && missing(expected.pages, fetched()).length === 0, {
      hosts: NORMAL_HOSTS,
      timeoutMs: 30_000,
      what: "the resumed crawl to fetch the rest",
      detail: () => `missing: ${missing(expected.pages, fetched()).join(", ")}`,
    });
    const { exit } = await interrupt(second);
    expectCleanExit(exit);

    const pages = pageRequests(web, NORMAL_HOSTS);
    expect([...fetchCounts(pages).keys()].sort()).toEqual([...expected.pages].sort());
    for (const [url, n] of fetchCounts(pages)) {
      if (n === 1) continue;
      // Fetched twice: only a page in flight at the kill, once before and once after.
      expect(n).toBe(2);
      const inFlight = lastPerHost.get(new URL(url).hostname);
      expect(inFlight && urlOf(inFlight)).toBe(url);
    }
    // The /sitemap.xml probes too: asked once per host, twice only if in flight at the kill. Never more:
    // a probe's 404 marks its sitemap row read (store/sitemap-table.ts), and only the host's next robots.txt
    // fetch could offer it again, which the check of robots.txt below rules out; so the only second ask
    // is the resumed crawl's, of a probe whose answer the kill lost.
    const probes = fetchCounts(probeRequests(web, NORMAL_HOSTS));
    expect([...probes.keys()].sort()).toEqual(NORMAL_HOSTS.map((host) => web.url(host, "/sitemap.xml")).sort());
    for (const [url, n] of probes) {
      if (n === 1) continue;
      expect({ url, n }).toEqual({ url, n: 2 });
      expect(urlOf(lastPerHost.get(new URL(url).hostname)!)).toBe(url);
    }
    // The page that hung at the kill was not lost: the resumed crawl fetched it again.
    const hang = web.requestsTo("hang.test").filter((r) => r.path === "/");
    expect(hang.length).toBe(2);
    expect(beforeKill).toContain(hang[0]!);
    expect(beforeKill).not.toContain(hang[1]!);
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    // robots.txt survived the kill too: read once per host.
    for (const host of NORMAL_HOSTS) expect(web.requestsTo(host).filter((r) => r.path === "/robots.txt").length).toBe(1);
    // Every record the index points at is whole, including those written just before the kill.
    const index = readCdxj(out);
    expect(index.length).toBeGreaterThan(0);
    for (const e of index) {
      const record = await readRecordAt(join(out, "warc", e.filename), e.offset, e.length);
      expect(record.url).toBe(e.url);
    }
  }, 60_000);

  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    test(`${sig} stops the crawl within seconds, says how to resume, and the resumed crawl fetches the rest once`, async () => {
      const web = await normalWeb();
      const seeds = NORMAL_HOSTS.map((host) => web.url(host));
      const expected = web.expectedPages(seeds);
      const out = h.tempDir();
      const argv = crawlArgs(web, seeds, out, ["--min-gap", `${MIN_GAP_MS}ms`, "--max-duration", "60s"]);
      const first = h.crawl(argv, { out });
      await waitFor(() => pageRequests(web).length >= expected.pages.size / 3, {
        timeoutMs: 20_000,
        what: "a third of the pages",
        run: first,
      });
      first.signal(sig);
      // Within seconds: a stop waits at most its grace period for the fetches in flight, then gives them back.
      const stopped = await first.waitExit(10_000);
      expect(stopped.code).toBe(0);
      expect(stopped.stdout).toContain("crawl stopped: interrupted");
      // The printed command is the one to run again.
      expect(stopped.stdout).toContain(`resume with     bun run crawl ${argv.join(" ")}`);
      const afterStop = pageRequests(web).length;
      expect(afterStop).toBeLessThan(expected.pages.size);

      const second = h.crawl(argv, { out });
      const fetched = () => fetchCounts(pageRequests(web)).keys();
      // A bound for a hang, not a speed: on a loaded box each fetch takes longer and its gap (10 x) with it.
      await waitUntilIdle(second, () => missing(expected.pages, fetched()).length === 0, {
        timeoutMs: 120_000,
        what: "the resumed crawl to fetch the rest",
        detail: () => `missing: ${missing(expected.pages, fetched()).join(", ")}`,
      });
      const { exit } = await interrupt(second);
      expectCleanExit(exit);

      const counts = fetchCounts(pageRequests(web));
      expect([...counts.keys()].sort()).toEqual([...expected.pages].sort());
      expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
      // The /sitemap.xml probes are remembered across the stop: each host asked once in the two runs.
      expect(repeated(probeRequests(web))).toEqual({});
      expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    }, 180_000);
  }

  test("Ctrl-C while a host hangs still stops within seconds, and the hanging page stays queued for the next run", async () => {
    const web = await normalWeb();
    const out = h.tempDir();
    // The default 20 s response timeout: only the stop itself can end this fetch soon.
    const run = h.crawl(crawlArgs(web, [web.url("hang.test"), web.url("site0.test")], out, ["--max-duration", "60s"]), { out });
    const hanging = () => web.requestsTo("hang.test").find((r) => r.path === "/");
    await waitFor(() => hanging()?.endedAt === Infinity, { timeoutMs: 15_000, what: "hang.test's page to be in flight", run });
    run.signal("SIGINT");
    const exit = await run.waitExit(10_000);
    expectCleanExit(exit);
    expect(hanging()!.endedAt).toBeLessThan(Infinity); // the crawler hung up rather than leave it open
    const summary = parseSummary(exit.stdout, run);
    // ... because of the stop, not its 20 s response timeout: the fetch was given back, not timed out.
    expect(summary.counters["fetch.network-error.timeout"] ?? 0).toBe(0);
    expect(summary.reason).toBe("interrupted");
    expect(summary.queued).toBeGreaterThanOrEqual(1);
    // The hanging page, and its host's /sitemap.xml probe, not asked yet (it comes after the home page).
    expect(queuedUrls(out, ["hang.test"])).toBe(2);
  }, 30_000);
});
