/**
 * `crawl stats --out DIR`: what a crawl directory holds, without crawling: URLs by state, queued and
 * scheduled counts, the feeds and their next read, and the WARC files, as JSON on stdout. Opens the store read-mostly; safe while no crawl
 * runs on DIR. Its one setting is a table row like every other, run by the process kit.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, dirKind, readConfig, tableRows, usageText, type Env } from "../core/config/index.ts";
import { FrontierStore } from "../engine/frontier/index.ts";
import { StartupError, type ProcessSpec } from "../kit/main/index.ts";

interface StatsSettings {
  out: string | undefined;
}

export const STATS_FIELDS = tableRows<StatsSettings>({
  out: {
    default: undefined,
    defaultText: "required",
    env: "CRAWL_OUT",
    flag: "--out",
    description: "The output directory of a crawl",
    ...dirKind(),
  },
});

function statsUsage(): string {
  return usageText(
    ["usage: crawl stats --out DIR"],
    ["Prints what a crawl's output directory holds, as JSON."],
    [{ title: "options", rows: STATS_FIELDS }],
  );
}

class StatsConfigError extends ConfigError.titled("invalid crawl stats arguments") {}

function resolveStatsConfig(argv: readonly string[], env: Env): { out: string } {
  const { values, problems } = readConfig(argv, env, STATS_FIELDS, {
    unknown: (_arg, name) => `unknown option ${name} (see crawl stats --help)`,
  });
  if (!values.out) problems.push("--out DIR is required");
  if (problems.length > 0 || !values.out) throw new StatsConfigError(problems);
  return { out: values.out };
}

export const crawlStatsProcess: ProcessSpec<{ out: string }> = {
  name: "crawl stats",
  usage: statsUsage,
  configure: resolveStatsConfig,
  abruptStopCost: "nothing is lost (stats only reads)",
  async run(ctx) {
    const out = resolve(ctx.config.out);
    const dbPath = join(out, "frontier.sqlite");
    if (!existsSync(dbPath)) throw new StartupError(`${out} holds no crawl (no frontier.sqlite); give the --out of a crawl`);
    const store = FrontierStore.open(dbPath);
    ctx.onClose("store", () => store.close());
    const warcDir = join(out, "warc");
    const warcs = existsSync(warcDir) ? readdirSync(warcDir).filter((f) => f.endsWith(".warc.gz")) : [];
    const bytes = warcs.reduce((sum, f) => sum + statSync(join(warcDir, f)).size, 0);
    const report = {
      urls: store.urlCount() + store.totalQueued(),
      byState: { ...store.urlStateCounts(), queued: store.totalQueued() },
      queued: store.totalQueued(),
      scheduled: store.scheduledCount(),
      // Feeds (RSS, Atom) known, those waiting for their next read, and when the first is due (epoch ms).
      feeds: { ...store.sitemaps.feedCounts(), nextReadAt: store.sitemaps.nextFeedDueAt() ?? null },
      warcFiles: warcs.length,
      warcBytes: bytes,
    };
    ctx.out(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  },
};
