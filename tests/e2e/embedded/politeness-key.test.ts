/**
 * `--politeness-key host|domain|ip`, judged from the test web's own log: 200 names under 4 registrable
 * domains resolve (--hosts-file) to 2 loopback addresses, and `crawl` dials them itself. With each key, the
 * crawl keeps one request at a time and the gap (end of one request to start of the next, no tolerance)
 * per key as that key reads the log: each host, each registrable domain, or each server address; the cap
 * per address holds too; and every page is fetched once. The host key's run also shows what the other keys
 * prevent: the hosts of one domain and of one address are fetched side by side. Through a proxy the crawl
 * cannot know the addresses, so `ip` falls back to the registrable domain: judged by domain from the log.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { registrableDomain } from "../../../core/scope/index.ts";
import { unusedPort } from "../../../kit/net/index.ts";
import { judgeAddresses, judgeKeys, sharedServerHosts, type RequestRecord } from "../../testweb/index.ts";
import {
  crawlArgs,
  expectCleanExit,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  queuedUrls,
  useHarness,
  waitFor,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const ADDRESSES = ["127.0.0.2", "127.0.0.3"];
const HOSTS = 200;
const MIN_GAP_MS = 50;
const MAX_PER_ADDRESS = 2;
const ADDRESS_GAP_MS = 15;

const KEYS: Record<"host" | "domain" | "ip", (r: RequestRecord) => string | undefined> = {
  host: (r) => r.host,
  domain: (r) => registrableDomain(r.host),
  ip: (r) => r.localAddress,
};

/** `proxy`: the crawl reaches the web through it as its forward proxy and resolves no name itself. */
async function crawlWith(key: keyof typeof KEYS, opts: { proxy?: boolean } = {}) {
  const port = await unusedPort();
  const shared = sharedServerHosts(HOSTS, ADDRESSES, port, 20);
  const web = await h.web({ hosts: 0, extraHosts: shared.hosts, addresses: ADDRESSES, port });
  const dir = h.tempDir();
  const hostsFile = join(dir, "hosts");
  writeFileSync(hostsFile, shared.hostsFile);
  const out = h.tempDir();
  const run = h.crawl(
    [
      ...shared.homePages,
      "--out",
      out,
      ...(opts.proxy ? ["--proxy", web.proxyUrl] : ["--hosts-file", hostsFile, "--allow-private-addresses"]),
      "--politeness-key",
      key,
      "--min-gap",
      `${MIN_GAP_MS}ms`,
      // The gap is the min gap alone, so the judge's gap is the one the crawl was told.
      "--gap-fetch-multiplier",
      "0",
      "--max-per-address",
      String(MAX_PER_ADDRESS),
      "--address-gap",
      `${ADDRESS_GAP_MS}ms`,
      "--sitemaps",
      "off",
      "--max-duration",
      "150s",
    ],
    { out },
  );
  const fetched = () => fetchCounts(pageRequests(web)).keys();
  await waitUntilIdle(run, () => missing(shared.pages, fetched()).length === 0, {
    timeoutMs: 120_000,
    what: "every page of the 200 hosts",
    detail: () => `missing ${missing(shared.pages, fetched()).length} of ${shared.pages.length}`,
  });
  const { exit } = await interrupt(run);
  expectCleanExit(exit);
  // Nothing lost to the key, nothing fetched twice, robots.txt kept.
  expect([...fetchCounts(pageRequests(web))].filter(([, n]) => n > 1)).toEqual([]);
  expect(pageRequests(web).filter((r) => r.path.startsWith("/private/"))).toEqual([]);
  // Each host read its own robots.txt (RFC 9309), whatever the key.
  expect(new Set(web.requests.filter((r) => r.path === "/robots.txt").map((r) => r.host)).size).toBe(HOSTS);
  if (opts.proxy) {
    // Every request came through the proxy: the crawl dialled no server address itself.
    expect(web.requests.filter((r) => r.via !== "proxy")).toEqual([]);
  } else {
    const addresses = judgeAddresses(web.requests, { maxInFlight: MAX_PER_ADDRESS, gapMs: ADDRESS_GAP_MS });
    expect(addresses.violations.slice(0, 20)).toEqual([]);
  }
  return web;
}

describe("crawl: --politeness-key", () => {
  test("host (the default): one request at a time and the gap per host; a domain's hosts and an address's are fetched side by side", async () => {
    const web = await crawlWith("host");
    expect(judgeKeys(web.requests, KEYS.host, MIN_GAP_MS).violations.slice(0, 20)).toEqual([]);
    expect(judgeKeys(web.requests, KEYS.domain, MIN_GAP_MS).violations.length).toBeGreaterThan(0);
    expect(judgeKeys(web.requests, KEYS.ip, MIN_GAP_MS).violations.length).toBeGreaterThan(0);
  }, 180_000);

  test("domain: the 50 hosts of each registrable domain share one request at a time and one gap, robots.txt included", async () => {
    const web = await crawlWith("domain");
    const verdict = judgeKeys(web.requests, KEYS.domain, MIN_GAP_MS);
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    expect([...verdict.hosts.values()]).toEqual([50, 50, 50, 50]);
  }, 180_000);

  test("ip: the 100 hosts of each server address share one request at a time and one gap", async () => {
    const web = await crawlWith("ip");
    const verdict = judgeKeys(web.requests, KEYS.ip, MIN_GAP_MS);
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    expect([...verdict.hosts.values()]).toEqual([100, 100]);
  }, 180_000);

  test("ip through a proxy falls back to domain: the 50 hosts of each registrable domain share one request at a time and one gap", async () => {
    const web = await crawlWith("ip", { proxy: true });
    const verdict = judgeKeys(web.requests, KEYS.domain, MIN_GAP_MS);
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    expect([...verdict.hosts.values()]).toEqual([50, 50, 50, 50]);
    // The fallback is per domain, not the whole crawl held as one server: the 4 domains were fetched side by side.
    expect(judgeKeys(web.requests, () => "all", MIN_GAP_MS).violations.length).toBeGreaterThan(0);
  }, 180_000);

  test("a crawl started with one key refuses to resume with another, says why, sends nothing, and resumes with its own", async () => {
    const web = await h.web({ hosts: 3 });
    const out = h.tempDir();
    const seeds = ["site0.test", "site1.test", "site2.test"].map((s) => web.url(s));
    const first = h.crawl(crawlArgs(web, seeds, out, ["--politeness-key", "domain", "--min-gap", "1s"]), { out });
    await waitFor(() => pageRequests(web).length >= 2, { timeoutMs: 30_000, what: "the first crawl to fetch pages", run: first });
    expectCleanExit((await interrupt(first)).exit);
    expect(queuedUrls(out)).toBeGreaterThan(0);
    const sent = web.requests.length;

    const refused = h.crawl(crawlArgs(web, [], out, ["--min-gap", "1s"]), { out });
    const exit = await refused.waitExit(15_000);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain(`--politeness-key host differs from the key the crawl in ${out} was built with (domain)`);
    expect(web.requests.length).toBe(sent);

    const resumed = h.crawl(crawlArgs(web, [], out, ["--politeness-key", "domain", "--min-gap", "1s"]), { out });
    await waitFor(() => web.requests.length > sent, {
      timeoutMs: 30_000,
      what: "the resumed crawl to fetch again",
      run: resumed,
    });
    expectCleanExit((await interrupt(resumed)).exit);
  }, 90_000);
});
