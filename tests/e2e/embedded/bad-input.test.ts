/**
 * Bad input is answered with a message and an exit code before anything is fetched: no --out, an unknown
 * flag. A bad seed among good ones is reported and skipped, and the good ones are crawled. A second crawl
 * on an output directory that a running crawl holds is refused, and the running one carries on.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  repeated,
  useHarness,
  waitFor,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

describe("crawl: bad input", () => {
  test("without --out the crawl refuses to start, says why, and exits with code 2", async () => {
    const web = await h.web({ hosts: 1 });
    const run = h.crawl([web.url("site0.test"), "--proxy", web.proxyUrl]);
    const exit = await run.waitExit(15_000);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("--out DIR is required");
    expect(web.requests).toEqual([]);
  }, 20_000);

  test("an unknown flag is named in the error and the exit code is 2", async () => {
    const web = await h.web({ hosts: 1 });
    const out = h.tempDir();
    const run = h.crawl([...crawlArgs(web, [web.url("site0.test")], out), "--max-pagez", "5"], { out });
    const exit = await run.waitExit(15_000);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("unknown option --max-pagez");
    expect(web.requests).toEqual([]);
  }, 20_000);

  test("a seeds file that cannot be read, or no seeds at all, is an error with exit code 2", async () => {
    const out = h.tempDir();
    const noFile = await h.crawl(["--seeds", join(out, "no-such-file.txt"), "--out", out]).waitExit(15_000);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain("cannot read seeds file");
    const noSeeds = await h.crawl(["--out", h.tempDir()]).waitExit(15_000);
    expect(noSeeds.code).toBe(2);
    expect(noSeeds.stderr).toContain("nothing to crawl");
  }, 20_000);

  test("an invalid seed is reported and the other seeds are still crawled", async () => {
    const web = await h.web({ hosts: 2, pagesPerHost: 2, linksPerPage: 2, pageBytes: 1000 });
    const out = h.tempDir();
    const seedsFile = join(h.tempDir(), "seeds.txt");
    writeFileSync(seedsFile, `# seeds for the test\n\nnot a url at all\n${web.url("site1.test")}\n   \n`);
    const seeds = [web.url("site0.test"), web.url("site1.test")];
    const expected = web.expectedPages(seeds);
    const run = h.crawl(
      crawlArgs(web, [web.url("site0.test"), "ftp://site0.test/file"], out, ["--seeds", seedsFile, "--max-duration", "30s"]),
      { out },
    );
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 20_000,
      what: "the valid seeds' pages",
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    // A bad line is named by its file and line number, a bad argument as an argument.
    expect(exit.stderr).toContain(`seed rejected (${seedsFile}:3): not a url at all`);
    expect(exit.stderr).toContain("seed rejected (argument): ftp://site0.test/file");
    expect(exit.stderr).not.toMatch(/seed rejected .*site1\.test/);
    expect([...fetchCounts(pageRequests(web)).keys()].sort()).toEqual([...expected.pages].sort());
  }, 30_000);

  test("a second crawl on an output directory in use is refused and the first crawl carries on", async () => {
    const web = await h.web({ hosts: 2, pagesPerHost: 6, linksPerPage: 4, pageBytes: 1000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    const out = h.tempDir();
    const argv = crawlArgs(web, [seed], out, ["--min-gap", "200ms", "--max-duration", "30s"]);
    const first = h.crawl(argv, { out });
    await waitFor(() => pageRequests(web).length >= 1, { timeoutMs: 15_000, what: "the first crawl to start fetching", run: first });

    const second = h.crawl(argv, { out });
    const refused = await second.waitExit(15_000);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`is in use by another crawl (pid ${first.pid})`);
    expect(first.exit()).toBeUndefined();

    await waitUntilIdle(first, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 20_000,
      what: "the first crawl to finish its pages",
    });
    const { exit } = await interrupt(first);
    expectCleanExit(exit);
    expect([...fetchCounts(pageRequests(web)).keys()].sort()).toEqual([...expected.pages].sort());
    expect(repeated(pageRequests(web))).toEqual({});
    expect(web.violations({ minGapMs: 200, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 40_000);
});
