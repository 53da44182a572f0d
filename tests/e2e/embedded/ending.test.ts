/**
 * How a crawl ends and what it says it leaves. Without --continuous a crawl ends by itself once nothing can
 * be fetched within --wait-horizon, and says in words what is left for the next run (refetches, retries,
 * URLs resting after failures, each with when the first is due) and the command that continues it; a retry
 * due within the horizon is waited for. A crawl whose every host is unreachable ends at once and says which
 * hosts, why and when they are tried again; with --continuous it keeps waiting and says so once, instead of
 * printing counters.
 */
import { describe, expect, test } from "bun:test";
import { expectCleanExit, crawlArgs, pathsOf, parseSummary, useHarness } from "./harness.ts";

const h = useHarness();

/** The UTC timestamp the summary writes after `what`, as epoch ms. */
function dueAfter(stdout: string, what: RegExp): number {
  const m = new RegExp(`${what.source}[^\\n]*?(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d) UTC`).exec(stdout);
  if (!m) throw new Error(`no time after ${what} in:\n${stdout}`);
  return Date.parse(`${m[1]!.replace(" ", "T")}Z`);
}

describe("crawl: ending and what is left", () => {
  test("a crawl ends by itself when nothing is due and says what it leaves and how to continue", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const args = crawlArgs(web, [web.url("etag.test")], out);
    const startedAt = Date.now();
    const run = h.crawl(args, { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    const summary = parseSummary(exit.stdout, run);
    expect(summary.reason).toBe("done");
    expect(exit.stdout).toContain("left for the next run:");
    expect(exit.stdout).toMatch(/ {4}4 refetches, the first due /);
    // The default initial refetch interval is one day.
    const due = dueAfter(exit.stdout, /4 refetches, the first due/);
    expect(due).toBeGreaterThanOrEqual(startedAt + 86_400_000 - 1_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1_000);
    expect(summary.resumeCommand).toBe(`bun run crawl ${args.join(" ")}`);
    expect(exit.stdout).toContain("add --continuous to keep running until then");
  }, 40_000);

  test("a retry due within --wait-horizon is waited for; a URL that failed too often is left resting", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(web, [web.url("errors.test", "/500")], out, ["--retry-delays", "2s", "--max-failures", "1", "--wait-horizon", "10s"]),
      { out },
    );
    const exit = await run.waitExit(40_000);
    expectCleanExit(exit);
    const tries = web.requestsTo("errors.test").filter((r) => r.path === "/500");
    expect(tries.map((r) => r.status)).toEqual([500, 500]);
    // The retry came when it was due, not before.
    expect(tries[1]!.startedAt - tries[0]!.endedAt).toBeGreaterThanOrEqual(2_000);
    expect(parseSummary(exit.stdout, run).reason).toBe("done");
    expect(exit.stdout).toMatch(/ {4}1 URL resting after too many failures, the first tried again /);
    expect(exit.stdout).toContain("errors.test: its pages failed (it answered 500)");
  }, 50_000);

  test("a crawl whose every host is unreachable ends at once and says which hosts, why and when they are tried again", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const seeds = [web.url("robots-500.test"), web.url("robots-unreachable.test"), web.url("nowhere.test")];
    const run = h.crawl(crawlArgs(web, seeds, out), { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    expect(parseSummary(exit.stdout, run).reason).toBe("nothing-due");
    expect(exit.stdout).toContain("every host of this crawl was unreachable, nothing was fetched (3 hosts):");
    // robots.txt answered 500; the connection was reset; the test web answers 502 for a host it does not know, as a proxy would.
    expect(exit.stdout).toContain("robots-500.test: robots.txt could not be read (it answered 500)");
    expect(exit.stdout).toContain("robots-unreachable.test: robots.txt could not be read (the connection was reset)");
    expect(exit.stdout).toContain("nowhere.test: robots.txt could not be read (it answered 502)");
    // RFC 9309: an unavailable robots.txt is asked again after at most an hour.
    const retry = dueAfter(exit.stdout, /robots-500\.test: [^\n]*tried again/);
    expect(retry - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(retry - Date.now()).toBeLessThanOrEqual(3_600_000);
    for (const host of ["robots-500.test", "robots-unreachable.test", "nowhere.test"]) expect(pathsOf(web, host)).toEqual(["/robots.txt"]);
  }, 40_000);

  test("with --continuous a crawl that can reach no host keeps waiting and says so once, without printing counters", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(web, [web.url("robots-500.test")], out, ["--continuous", "--max-duration", "22s", "--log-format", "json"]),
      {
        out,
      },
    );
    const exit = await run.waitExit(40_000);
    expectCleanExit(exit);
    expect(parseSummary(exit.stdout, run).reason).toBe("max-duration");
    const lines = exit.stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; waiting?: boolean; unreachableHosts?: Array<{ host: string; reason: string }> });
    const waiting = lines.filter((l) => l.waiting);
    // Two progress ticks (10 s apart) passed with nothing to do: the line is written once, the counters never.
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.msg).toMatch(/^waiting: nothing to fetch until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC .*unreachable: robots-500\.test/);
    expect(waiting[0]!.unreachableHosts).toEqual([expect.objectContaining({ host: "robots-500.test", reason: "status 500" })]);
    expect(lines.filter((l) => l.msg === "progress")).toEqual([]);
    expect(pathsOf(web, "robots-500.test")).toEqual(["/robots.txt"]);
  }, 50_000);
});
