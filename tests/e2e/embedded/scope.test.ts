/**
 * Scope and filters in `crawl`, judged from the test web's request log: `--scope host` keeps the crawl on
 * the seed's host, `--scope domain` on its registrable domain; the default extension deny-list keeps an
 * archive and an image from being fetched; `--max-depth` and `--deny-urls` cut where they say; a scope
 * file adds to the lists, and a bad one is refused before anything is fetched. Each refusal is counted
 * under `admission.rejected.<rule>`.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCOPE_CHAIN } from "../../testweb/index.ts";
import { assertPolite, gapPolicyOf } from "../politeness.ts";
import { expectCleanExit, crawlArgs, interrupt, pageRequests, urlOf, useHarness, waitUntilIdle } from "./harness.ts";

const h = useHarness();

const chain = (to: number) => Array.from({ length: to }, (_, i) => `/d/${i + 1}`);

describe("crawl: scope and filters", () => {
  const cases: Array<{ mode: string; extra: string[]; want: Record<string, string[]>; rejected: Record<string, number> }> = [
    {
      mode: "host",
      extra: [],
      want: { "www.scope.test": ["/", "/a", "/files/doc.pdf", "/print/a", ...chain(SCOPE_CHAIN)] },
      rejected: { "admission.rejected.scope": 3, "admission.rejected.extension": 2 },
    },
    {
      mode: "domain",
      extra: ["--max-depth", "3", "--deny-urls", "*/print/* re:\\.pdf$"],
      want: { "www.scope.test": ["/", "/a", ...chain(3)], "blog.scope.test": ["/", "/post/1"], "shop.scope.test": ["/", "/item/1"] },
      rejected: {
        "admission.rejected.scope": 1,
        "admission.rejected.extension": 2,
        "admission.rejected.depth": 1,
        "admission.rejected.url-denied": 2,
      },
    },
  ];
  for (const c of cases) {
    test(`--scope ${c.mode}${c.extra.length ? ` ${c.extra.join(" ")}` : ""} fetches exactly what it keeps`, async () => {
      const web = await h.web({ hosts: 1, special: true });
      const want = Object.entries(c.want).flatMap(([host, paths]) => paths.map((p) => web.url(host, p)));
      const out = h.tempDir();
      const run = h.crawl(crawlArgs(web, [web.url("www.scope.test")], out, ["--scope", c.mode, ...c.extra]), { out });
      await waitUntilIdle(run, () => want.every((u) => pageRequests(web).some((r) => urlOf(r) === u)), {
        timeoutMs: 30_000,
        what: "every page the scope keeps",
      });
      const { exit, summary } = await interrupt(run);
      expectCleanExit(exit);
      expect(pageRequests(web).map(urlOf).sort()).toEqual(want.sort());
      expect(Object.fromEntries(Object.entries(summary.counters).filter(([k]) => k.startsWith("admission.rejected.")))).toEqual(c.rejected);
      expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    }, 45_000);
  }

  test("a scope file adds hosts, patterns and extensions to the lists; a bad one is refused with exit 2 before any request", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const dir = h.tempDir();
    const file = join(dir, "scope.txt");
    writeFileSync(
      file,
      ["# the blog and PDFs are not wanted", "deny-host blog.scope.test", "deny-extension pdf", "deny-url re:/d/[3-9]$", ""].join("\n"),
    );
    const out = h.tempDir();
    const argv = crawlArgs(web, [web.url("www.scope.test")], out, ["--scope-file", file]);
    const run = h.crawl(argv, { out });
    const want = ["/", "/a", "/print/a", "/d/1", "/d/2"]
      .map((p) => web.url("www.scope.test", p))
      .concat(
        ["outside.test", "shop.scope.test"].map((host) => web.url(host)),
        web.url("outside.test", "/x"),
        web.url("shop.scope.test", "/item/1"),
      );
    await waitUntilIdle(run, () => want.every((u) => pageRequests(web).some((r) => urlOf(r) === u)), {
      timeoutMs: 30_000,
      what: "every page the scope file keeps",
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    expect(pageRequests(web).map(urlOf).sort()).toEqual(want.sort());
    expect(summary.counters["admission.refused.denied-host"]).toBe(1);
    expect(summary.counters["admission.rejected.extension"]).toBe(3);
    // The harness judges politeness after the test, from the log the bad run below starts by clearing:
    // this crawl is judged here, by the same strict checker, while its requests are still in the log.
    assertPolite(web, [gapPolicyOf(argv)]);

    web.clearRequests();
    writeFileSync(file, "allow-host ok.test\ndeny-url re:(\nnonsense line\n");
    const bad = await h.crawl(crawlArgs(web, [web.url("www.scope.test")], h.tempDir(), ["--scope-file", file])).waitExit(20_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid --scope-file");
    expect(bad.stderr).toContain(`${file}:2: "re:(" is not a valid regular expression`);
    expect(bad.stderr).toContain(`${file}:3: expected`);
    expect(web.requests).toEqual([]);
  }, 60_000);
});
