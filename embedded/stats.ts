/**
 * `crawl stats --out DIR`: what a crawl directory holds, without crawling: URLs by state, queued and
 * scheduled counts, and the WARC files. Opens the store read-mostly; safe while no crawl runs on DIR.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { FrontierStore } from "../engine/frontier/index.ts";

export async function statsCommand(argv: string[]): Promise<number> {
  const i = argv.indexOf("--out");
  const dir = i >= 0 ? argv[i + 1] : undefined;
  if (!dir) {
    process.stderr.write("usage: crawl stats --out DIR\n");
    return 2;
  }
  const out = resolve(dir);
  const dbPath = join(out, "frontier.sqlite");
  if (!existsSync(dbPath)) {
    process.stderr.write(`crawl stats: ${out} holds no crawl (no frontier.sqlite)\n`);
    return 1;
  }
  const store = FrontierStore.open(dbPath);
  const warcDir = join(out, "warc");
  const warcs = existsSync(warcDir) ? readdirSync(warcDir).filter((f) => f.endsWith(".warc.gz")) : [];
  const bytes = warcs.reduce((sum, f) => sum + statSync(join(warcDir, f)).size, 0);
  const report = {
    urls: store.urlCount() + store.totalQueued(),
    byState: { ...store.urlStateCounts(), queued: store.totalQueued() },
    queued: store.totalQueued(),
    scheduled: store.scheduledCount(),
    warcFiles: warcs.length,
    warcBytes: bytes,
  };
  store.close();
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}
