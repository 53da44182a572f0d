/**
 * Crawlee 3.18's CheerioCrawler doing the benchmark's crawl, run under Node as people run it. It is
 * copied next to its own node_modules in the bench cache (see ../crawlee.ts) and never imported by the
 * project. Settings, each from Crawlee's own options (BasicCrawlerOptions, 3.18.1 typings):
 *
 * - `sameDomainDelaySecs`: the scenario's per-host gap. Crawlee keys it by registrable domain (tldts
 *   `getDomain`), which for `siteN.test` is the host itself, and measures it from the start of the last
 *   request to the domain, not from its end.
 * - `respectRobotsTxtFile: true`: robots.txt fetched per origin, checked for the `*` group, also applied
 *   by `enqueueLinks`.
 * - `proxyConfiguration`: every page through the test web, which is also how the web resolves `siteN.test`.
 * - concurrency: Crawlee's defaults (autoscaled pool, `maxConcurrency` 200, `maxRequestsPerMinute`
 *   unlimited); `--max-concurrency N` overrides for experiments.
 * - storage: Crawlee's default, persisted to CRAWLEE_STORAGE_DIR (request queue and dataset on disk), and
 *   every page's HTML pushed to the default dataset, because our crawler also keeps a durable frontier and
 *   writes every page (WARC). `--storage memory` sets `persistStorage: false` for comparison.
 * - links: `enqueueLinks()` with its default strategy (same hostname); every host is seeded, so
 *   cross-host links lead nowhere new.
 *
 * One correction, and only one: Crawlee 3.18.1's BasicCrawler fetches robots.txt with
 * `RobotsTxtFile.find(url)`, without the crawler's proxy, so behind a proxy (here: the only way to reach
 * `siteN.test`) every robots.txt fetch fails, the failure is not cached, and every URL is treated as
 * allowed. The subclass below fetches it through the proxy, with Crawlee's own `RobotsTxtFile` and cache.
 *
 *   node crawl.mjs --seeds FILE --proxy URL --gap-secs 1 [--storage disk|memory] [--max-concurrency N]
 */
import { readFileSync } from "node:fs";
import { CheerioCrawler, Configuration, ProxyConfiguration, RobotsTxtFile } from "crawlee";

function parseArgs(argv) {
  const opts = { storage: "disk", gapSecs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i];
    if (argv[i] === "--seeds") opts.seeds = next();
    else if (argv[i] === "--proxy") opts.proxy = next();
    else if (argv[i] === "--gap-secs") opts.gapSecs = Number(next());
    else if (argv[i] === "--storage") opts.storage = next();
    else if (argv[i] === "--max-concurrency") opts.maxConcurrency = Number(next());
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!opts.seeds || !opts.proxy) throw new Error("--seeds and --proxy are required");
  return opts;
}

/** CheerioCrawler whose robots.txt fetches go through the configured proxy (see the module comment). */
class ProxiedRobotsCheerioCrawler extends CheerioCrawler {
  constructor(options, config, robotsProxyUrl) {
    super(options, config);
    this.robotsProxyUrl = robotsProxyUrl;
  }

  async getRobotsTxtFileForUrl(url) {
    if (!this.respectRobotsTxtFile) return undefined;
    try {
      const origin = new URL(url).origin;
      const cached = this.robotsTxtFileCache.get(origin);
      if (cached) return cached;
      const file = await RobotsTxtFile.find(url, this.robotsProxyUrl);
      this.robotsTxtFileCache.add(origin, file);
      return file;
    } catch {
      this.log.warning(`Failed to fetch robots.txt for request ${url}`);
      return undefined;
    }
  }
}

const opts = parseArgs(process.argv.slice(2));
const seeds = readFileSync(opts.seeds, "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const config = new Configuration({ persistStorage: opts.storage !== "memory" });

const crawler = new ProxiedRobotsCheerioCrawler(
  {
    proxyConfiguration: new ProxyConfiguration({ proxyUrls: [opts.proxy] }),
    sameDomainDelaySecs: opts.gapSecs,
    respectRobotsTxtFile: true,
    ...(opts.maxConcurrency ? { maxConcurrency: opts.maxConcurrency } : {}),
    async requestHandler({ request, body, enqueueLinks, pushData }) {
      await pushData({ url: request.loadedUrl ?? request.url, html: typeof body === "string" ? body : body.toString("utf8") });
      await enqueueLinks();
    },
  },
  config,
  opts.proxy,
);

process.on("SIGTERM", () => process.exit(0));
await crawler.run(seeds);
