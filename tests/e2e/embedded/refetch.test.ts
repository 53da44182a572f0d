/**
 * Refetching: a page fetched before is fetched again when its refetch interval has passed, with a
 * conditional GET (If-None-Match / If-Modified-Since from the first response), so an unchanged page costs
 * a 304 and a changed one comes back in full.
 *
 * Slow: the shortest refetch interval the crawler accepts is one minute, so this test takes over a minute
 * and runs only with E2E_SLOW=1 (`E2E_SLOW=1 bun test tests/e2e/embedded/refetch.test.ts`).
 */
import { describe, expect, test } from "bun:test";
import { stableEtag } from "../../testweb/index.ts";
import { crawlArgs, interrupt, pathsOf, useHarness, waitFor } from "./harness.ts";

const h = useHarness();

describe("crawl: refetch", () => {
  test.if(process.env.E2E_SLOW === "1")(
    "a page due for refetch is asked for conditionally: unchanged pages answer 304, a changed one comes back in full",
    async () => {
      const web = await h.web({ hosts: 1, special: true });
      const host = "etag.test";
      const paths = ["/", "/page/1", "/page/2", "/changing"];
      const out = h.tempDir();
      const run = h.crawl(
        crawlArgs(web, [web.url(host)], out, ["--refetch-initial", "1m", "--refetch-min", "1m", "--max-duration", "120s"]),
        { out },
      );
      const twice = () => paths.every((p) => pathsOf(web, host).filter((x) => x === p).length >= 2);
      await waitFor(() => twice() && web.requestsTo(host).every((r) => r.endedAt < Infinity), {
        timeoutMs: 100_000,
        what: "every page of etag.test to be fetched a second time",
        run,
      });
      const { exit } = await interrupt(run);
      expect(exit.code).toBe(0);

      const second = (p: string) => web.requestsTo(host).filter((r) => r.path === p)[1]!;
      for (const p of ["/", "/page/1", "/page/2"]) {
        expect(second(p).headers["if-none-match"]).toBe(stableEtag(p));
        expect(second(p).status).toBe(304);
      }
      expect(second("/changing").headers["if-none-match"]).toBe('"v1"');
      expect(second("/changing").status).toBe(200);
      // robots.txt is cached for up to a day: not fetched again for the refetch.
      expect(pathsOf(web, host).filter((p) => p === "/robots.txt").length).toBe(1);
      expect(web.violations({ minGapMs: 100 }).map((v) => v.message)).toEqual([]);
    },
    120_000,
  );
});
