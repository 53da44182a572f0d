/**
 * Crawlee, the peer the benchmark measures us against, kept out of the project: `crawlee-runner/` has its
 * own package.json (Crawlee pinned) and the script, and both are copied into a cache directory outside
 * the repository (`$CRAWL_BENCH_CACHE`, else `$XDG_CACHE_HOME/crawler-bench/crawlee`, else
 * `~/.cache/crawler-bench/crawlee`), where `npm install` runs once; later runs reuse it. The crawl runs
 * under `node`, as Crawlee's users run it.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CrawlerUnderTest } from "./run.ts";

const RUNNER_DIR = new URL("./crawlee-runner", import.meta.url).pathname;

export function crawleeCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.CRAWL_BENCH_CACHE) return env.CRAWL_BENCH_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "crawler-bench", "crawlee");
}

/** Installs the runner's dependencies into `cacheDir` unless the same package.json is installed there already. */
export function installCrawlee(cacheDir: string, log: (line: string) => void): { version: string } {
  mkdirSync(cacheDir, { recursive: true });
  const wanted = readFileSync(join(RUNNER_DIR, "package.json"), "utf8");
  const stamp = join(cacheDir, ".installed-package.json");
  const installedVersion = join(cacheDir, "node_modules", "crawlee", "package.json");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== wanted || !existsSync(installedVersion)) {
    log(`installing Crawlee into ${cacheDir} (npm install, once)...`);
    writeFileSync(join(cacheDir, "package.json"), wanted);
    const npm = Bun.spawnSync(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: cacheDir,
      stdout: "inherit",
      stderr: "inherit",
    });
    if (npm.exitCode !== 0) throw new Error(`npm install in ${cacheDir} failed (exit ${npm.exitCode})`);
    writeFileSync(stamp, wanted);
  }
  copyFileSync(join(RUNNER_DIR, "crawl.mjs"), join(cacheDir, "crawl.mjs"));
  return { version: JSON.parse(readFileSync(installedVersion, "utf8")).version as string };
}

export function crawleeCrawler(
  cacheDir: string,
  version: string,
  opts: { storage?: "disk" | "memory"; maxConcurrency?: number } = {},
): CrawlerUnderTest {
  return {
    name: `crawlee ${version} (node)`,
    launch: ({ proxyUrl, hostsFile, seedsFile, dir, scenario }) => {
      if (hostsFile) throw new Error("Crawlee runs through the proxy only (no --direct)");
      return {
        cmd: [
          "node",
          join(cacheDir, "crawl.mjs"),
          "--seeds",
          seedsFile,
          "--proxy",
          proxyUrl,
          "--gap-secs",
          String(scenario.minGapMs / 1000),
          "--storage",
          opts.storage ?? "disk",
          ...(opts.maxConcurrency ? ["--max-concurrency", String(opts.maxConcurrency)] : []),
        ],
        cwd: dir,
        env: { CRAWLEE_STORAGE_DIR: join(dir, "storage") },
      };
    },
  };
}
