/**
 * Our embedded crawler as the benchmark runs it: `bun embedded/main.ts` with the seeds file, a fresh
 * --out directory (frontier store, seen-set, WARC files: everything a real crawl writes), the test web as
 * its proxy (or, with --direct, the hosts file of direct.ts and --allow-private-addresses) and the scenario's gap. Every other policy keeps its default, including gap ≥ 10 × fetch time,
 * which is checked as its own rule. --max-duration is only a safety net: the benchmark stops it with
 * SIGTERM at the end of the window, as a person would with Ctrl-C. Its environment is the one `bun run crawl`
 * gives it (the allocator settings of kit/allocator-env.ts).
 */
import { join } from "node:path";
import { allocatorEnv } from "../../kit/allocator-env.ts";
import { directCrawlArgs } from "./direct.ts";
import type { CrawlerUnderTest } from "./run.ts";

const MAIN = new URL("../../embedded/main.ts", import.meta.url).pathname;

export interface OurCrawlerOptions {
  /** Flags for `bun` itself, e.g. `--cpu-prof --cpu-prof-dir=DIR` (see crawl.bench.ts --profile). */
  bunFlags?: readonly string[];
  /** More `crawl` arguments, e.g. `--max-in-flight 1024`. */
  crawlArgs?: readonly string[];
}

export function ourCrawler(opts: OurCrawlerOptions = {}): CrawlerUnderTest {
  return {
    name: "ours (bun)",
    launch: ({ proxyUrl, hostsFile, seedsFile, dir, scenario }) => ({
      // What `bun run crawl` starts the crawler with (package.json's script; kit/allocator-env.ts).
      env: allocatorEnv(process.env),
      cmd: [
        process.execPath,
        ...(opts.bunFlags ?? []),
        MAIN,
        "--seeds",
        seedsFile,
        "--out",
        join(dir, "out"),
        ...(hostsFile ? directCrawlArgs(hostsFile) : ["--proxy", proxyUrl]),
        "--min-gap",
        `${scenario.minGapMs}ms`,
        "--max-duration",
        `${scenario.seconds + 60}s`,
        ...(opts.crawlArgs ?? []),
      ],
    }),
    ownPolicy: { gapMultiplier: 10 },
  };
}
