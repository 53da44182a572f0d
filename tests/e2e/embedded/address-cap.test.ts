/**
 * The cap per server address, judged from the test web's own log: 200 names under 4 registrable domains
 * resolve (--hosts-file) to 2 loopback addresses, and `crawl` dials them itself (no proxy). Each host is
 * crawled politely, and over all the hosts each server answers for, never more than --max-per-address
 * requests are open at once and never two arrive closer than --address-gap; the cap is reached (the crawl
 * waits on it) and nothing is lost to it: every page is fetched once. With the cap set wide open the same
 * judge sees the crowd a per-host crawler sends one server, which is what the cap is for. The dashboard's
 * per-address section (`GET /v1/dashboard`, hosts.addresses) and /metrics count for each server exactly the
 * requests the test web saw arrive at that address, and `url explain` names the address a URL's host is
 * capped under, the cap, and that server's state in the gate.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { unusedPort } from "../../../kit/net/index.ts";
import { judgeAddresses, sharedServerHosts } from "../../testweb/index.ts";
import type { Dashboard } from "../../../core/dashboard/index.ts";
import {
  expectCleanExit,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  useHarness,
  waitFor,
  waitUntilIdle,
  type CrawlRun,
  httpBase,
} from "./harness.ts";

const h = useHarness();

const ADDRESSES = ["127.0.0.2", "127.0.0.3"];
const HOSTS = 200;
const MAX_PER_ADDRESS = 2;
const ADDRESS_GAP_MS = 15;

async function sharedWeb() {
  const port = await unusedPort();
  // Pages take longer than the gap to answer, so requests to one server overlap and the cap, not only the gap, holds them.
  const shared = sharedServerHosts(HOSTS, ADDRESSES, port, 40);
  const web = await h.web({ hosts: 0, extraHosts: shared.hosts, addresses: ADDRESSES, port });
  const dir = h.tempDir();
  const hostsFile = join(dir, "hosts");
  writeFileSync(hostsFile, shared.hostsFile);
  return { web, shared, hostsFile };
}

function directArgs(seeds: readonly string[], out: string, hostsFile: string, extra: readonly string[]): string[] {
  return [
    ...seeds,
    "--out",
    out,
    "--hosts-file",
    hostsFile,
    "--allow-private-addresses",
    "--min-gap",
    "100ms",
    "--sitemaps",
    "off",
    "--max-duration",
    "120s",
    ...extra,
  ];
}

describe("crawl: the cap per server address", () => {
  test("200 names on 2 addresses: never over the cap or closer than the gap at either address, every page fetched once", async () => {
    const { web, shared, hostsFile } = await sharedWeb();
    const out = h.tempDir();
    const run = h.crawl(
      directArgs(shared.homePages, out, hostsFile, [
        "--max-per-address",
        String(MAX_PER_ADDRESS),
        "--address-gap",
        `${ADDRESS_GAP_MS}ms`,
        // Kept running once done, so its dashboard and /metrics can be read.
        "--continuous",
        "--http",
        "127.0.0.1:0",
      ]),
      { out },
    );
    const base = await httpBase(run);
    const fetched = () => fetchCounts(pageRequests(web)).keys();
    await waitUntilIdle(run, () => missing(shared.pages, fetched()).length === 0, {
      timeoutMs: 90_000,
      what: "every page of the 200 hosts",
      detail: () => `missing ${missing(shared.pages, fetched()).length} of ${shared.pages.length}`,
    });
    const dashboard = (await (await fetch(`${base}/v1/dashboard`)).json()) as Dashboard;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const host = shared.homePages[0]!;
    const explained = (
      (await (await fetch(`${base}/v1/urls/explain?url=${encodeURIComponent(`${host}about`)}`)).json()) as {
        explanation: Record<string, unknown>;
      }
    ).explanation;
    const { exit } = await interrupt(run);
    expectCleanExit(exit);

    const verdict = judgeAddresses(web.requests, { maxInFlight: MAX_PER_ADDRESS, gapMs: ADDRESS_GAP_MS });
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    // The host board's address section: one row per server, its passes the requests that server received,
    // and the waits the cap imposed (it was reached, so some requests waited for a pass).
    const rows = dashboard.hosts.addresses.map((a) => ({ server: a.server, passes: a.passes, waited: a.waits > 0 && a.longestWaitMs > 0 }));
    expect(rows.sort((a, b) => a.server.localeCompare(b.server))).toEqual(
      ADDRESSES.map((address) => ({ server: `ip:${address}`, passes: verdict.requests.get(address)!, waited: true })),
    );
    const passes = ADDRESSES.reduce((sum, a) => sum + verdict.requests.get(a)!, 0);
    expect(metrics).toMatch(new RegExp(`^crawler_fetch_address_passes_total(\\{[^}]*\\})? ${passes}$`, "m"));
    // url explain: the address the name resolves to (the hosts file), the cap, and the server's state (idle now).
    const address = shared.addressOf.get(new URL(host).hostname)!;
    expect(explained).toMatchObject({
      maxPerAddress: MAX_PER_ADDRESS,
      addressGapMs: ADDRESS_GAP_MS,
      server: `ip:${address}`,
      serverStateKnown: true,
      serverHolders: 0,
      serverPasses: verdict.requests.get(address)!,
    });
    // The board's figures for that server, each said apart: passes that waited (never more than the passes)
    // and requests given back without a pass, as the dashboard's row has them.
    const row = dashboard.hosts.addresses.find((a) => a.server === `ip:${address}`)!;
    expect([explained.serverWaits, explained.serverGivenBack]).toEqual([row.waits, row.givenBack]);
    expect(row.waits).toBeLessThanOrEqual(row.passes);
    expect(metrics).toMatch(/^crawler_addresses_tracked(\{[^}]*\})? 2$/m);
    // Both servers were asked, by way of all their names, and the crawl pressed against the cap.
    expect([...verdict.requests.keys()].sort()).toEqual(ADDRESSES);
    for (const address of ADDRESSES) expect(verdict.mostOpen.get(address)).toBe(MAX_PER_ADDRESS);
    // Each name reached its own address only: the crawler dialled what the hosts file said.
    for (const r of web.requests) expect(r.localAddress).toBe(shared.addressOf.get(r.host)!);
    // Nothing lost to the cap, nothing fetched twice, robots.txt kept (per host: the harness judges gaps).
    expect([...fetchCounts(pageRequests(web))].filter(([, n]) => n > 1)).toEqual([]);
    expect(pageRequests(web).filter((r) => r.path.startsWith("/private/"))).toEqual([]);
  }, 150_000);

  test("with the cap opened wide, the same crawl sends one server more than the cap at once (what the cap prevents)", async () => {
    const { web, shared, hostsFile } = await sharedWeb();
    const out = h.tempDir();
    const run = h.crawl(directArgs(shared.homePages, out, hostsFile, ["--max-per-address", "1000", "--address-gap", "0"]), { out });
    await waitUntilIdle(run, () => missing(shared.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 90_000,
      what: "every page of the 200 hosts",
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    const verdict = judgeAddresses(web.requests, { maxInFlight: MAX_PER_ADDRESS, gapMs: ADDRESS_GAP_MS });
    expect(verdict.violations.length).toBeGreaterThan(0);
  }, 150_000);
});
