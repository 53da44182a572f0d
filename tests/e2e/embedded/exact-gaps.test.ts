/**
 * Politeness to the millisecond, as the server counts it: from the instant it finished a response (or saw
 * the connection close) to the arrival of the next request to the same host, never less than max(min gap,
 * 10 × that response's duration, Crawl-delay, Retry-After), with no tolerance. The crawls here are small,
 * so the crawler is idle and dispatches each host the moment its gap ends: a gap computed a little short
 * (a clock read too early, a rounding, a duration measured differently from the server's, robots.txt or
 * a redirect not counted) shows as a request arriving a little early. The webs have trouble in them:
 * slow hosts, failing hosts, 429s with Retry-After, redirects, a robots.txt answering 503.
 */
import { describe, expect, test } from "bun:test";
import type { RequestRecord, TestWeb } from "../../testweb/index.ts";
import { expectCleanExit, crawlArgs, interrupt, useHarness, waitFor } from "./harness.ts";

const h = useHarness();

/** Every kind of trouble was met, so "no violation" covers each of them. */
function troubleMet(web: TestWeb): string[] {
  const of = (kind: string) => [...web.faulty].filter(([, k]) => k === kind).map(([host]) => host);
  const seen = (hosts: string[], test: (r: RequestRecord, later: RequestRecord[]) => boolean) =>
    hosts.some((host) => {
      const log = web.requestsTo(host);
      return log.some((r, i) => r.endedAt < Infinity && test(r, log.slice(i + 1)));
    });
  const met: string[] = [];
  if (seen(of("failing"), (r, later) => r.status === 500 && later.length > 0)) met.push("500");
  if (seen(of("failing"), (r, later) => r.status === 429 && later.length > 0)) met.push("429");
  if (seen(of("slow"), (r, later) => r.path !== "/robots.txt" && later.length > 0)) met.push("slow");
  if (seen(of("redirecting"), (r, later) => (r.status === 301 || r.status === 302) && later.length > 0)) met.push("redirect");
  if (seen(of("robots503"), (r) => r.path === "/robots.txt" && r.status === 503)) met.push("robots 503");
  return met;
}
const ALL_TROUBLE = ["500", "429", "slow", "redirect", "robots 503"];

function politeness(web: TestWeb, minGapMs: number): string[] {
  return web.violations({ minGapMs, gapMultiplier: 10 }).map((v) => v.message);
}

describe("crawl: exact gaps", () => {
  test("an idle crawl of slow, failing, throttling and redirecting hosts sends no request a moment too soon", async () => {
    const web = await h.web({
      hosts: 24,
      pagesPerHost: 200,
      linksPerPage: 8,
      pageBytes: 3000,
      faults: { failing: 0.15, slow: 0.1, slowMs: 60, robots503: 0.05, redirecting: 0.15 },
    });
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(
        web,
        web.hosts.map((host) => web.url(host)),
        out,
        ["--min-gap", "150ms", "--max-duration", "120s"],
      ),
      { out },
    );
    await waitFor(() => web.requests.length >= 600 && troubleMet(web).length === ALL_TROUBLE.length, {
      timeoutMs: 60_000,
      what: "600 requests, with every kind of trouble met",
      run,
      detail: () => `${web.requests.length} requests; met: ${troubleMet(web).join(", ")}`,
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    expect(troubleMet(web).sort()).toEqual([...ALL_TROUBLE].sort());
    expect(politeness(web, 150)).toEqual([]);
  }, 90_000);

  test("a crawl killed with kill -9 and started again sends no request a moment too soon, before or after", async () => {
    // The gap is longer than the crawler takes to start again, so a resumed crawl that forgot when it
    // last asked each host (or asked one whose request was in flight at the kill) would be caught.
    const GAP_MS = 3000;
    const web = await h.web({
      hosts: 60,
      pagesPerHost: 100,
      linksPerPage: 8,
      pageBytes: 3000,
      faults: { failing: 0.1, slow: 0.1, slowMs: 150, redirecting: 0.1 },
    });
    const out = h.tempDir();
    const argv = crawlArgs(
      web,
      web.hosts.map((host) => web.url(host)),
      out,
      ["--min-gap", `${GAP_MS}ms`, "--max-duration", "120s"],
    );
    const first = h.crawl(argv, { out });
    const open = () => web.requests.some((r) => r.endedAt === Infinity);
    // Killed while a request is in flight (a slow host's, most likely), after every host was asked once.
    await waitFor(() => web.requests.length >= 150 && open(), { timeoutMs: 60_000, what: "150 requests and one in flight", run: first });
    first.signal("SIGKILL");
    expect((await first.waitExit(10_000)).signal).toBe("SIGKILL");
    const killedAt = web.requests.length;

    const second = h.crawl(argv, { out });
    await waitFor(() => web.requests.length >= killedAt + 150, {
      timeoutMs: 60_000,
      what: "150 more requests after the restart",
      run: second,
    });
    const { exit } = await interrupt(second);
    expectCleanExit(exit);
    // Both runs asked hosts the other had asked (the resumed crawl is not polite by having new hosts).
    const before = new Set(web.requests.slice(0, killedAt).map((r) => r.host));
    expect(web.requests.slice(killedAt).filter((r) => before.has(r.host)).length).toBeGreaterThan(100);
    expect(politeness(web, GAP_MS)).toEqual([]);
  }, 150_000);
});
