/**
 * Issue 27's freeze sequence, run from outside on `cluster up` as an SRE would see it:
 *
 *   bun bench/freeze-sequence.bench.ts [--hosts 300] [--pages 50] [--tail-seconds 20] [--no-faults]
 *
 * A test web of 300 hosts of 50 pages with the special ones (errors, slow hosts, a 503 robots.txt; at the
 * test web's default of 20 pages a host the whole web, 6,888 pages, is crawled in 30 s), `cluster up
 * --frontiers 2 --fetchers 2 --coordinators 2 --proxy <web> -- --min-gap 1s`, every home page seeded with
 * `crawlctl seed add --file`. 15 s after the seeds: frontier-1 frozen (SIGSTOP) for 30 s, then the
 * coordinator holding the lease for 20 s, then nats-server for 8 s, each thawed (SIGCONT) before the next.
 * At the start of each freeze `crawlctl status` is run with both coordinators' addresses and timed. The
 * window runs from the seeds to `--tail-seconds` after the last thaw. Printed, from the test web's own
 * log: distinct pages fetched in the window, pages fetched again after a 2xx answer (the duplicates that
 * cost a host a request; retries of failures are the policy's), politeness violations (min gap 1 s and 10x
 * the fetch time as the server saw it; the checker has no tolerance), and each crawlctl answer's time. Targets: >= 8,000 distinct pages, <= 40
 * fetched twice, 0 violations, every status within 20 s. `--no-faults` runs the same window with nothing
 * frozen, as the baseline.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterFile } from "../scripts/cluster/cluster-file.ts";
import { freeze, thaw } from "../tests/support/freeze.ts";
import { startTestWeb, type RequestRecord } from "../tests/testweb/index.ts";
import { waitForClusterFile } from "./crawl/cluster.ts";

const REPO_ROOT = new URL("..", import.meta.url).pathname;
const MIN_GAP_MS = 1_000;

function parseArgs(argv: readonly string[]): { hosts: number; pages: number; tailSeconds: number; faults: boolean } {
  const out = { hosts: 300, pages: 50, tailSeconds: 20, faults: true };
  for (let i = 0; i < argv.length; i++) {
    const v = Number(argv[i + 1]);
    if (argv[i] === "--no-faults") {
      // The same window with nothing frozen: the baseline the freezes are measured against.
      out.faults = false;
      continue;
    }
    if (argv[i] === "--hosts" && Number.isInteger(v) && v > 0) out.hosts = v;
    else if (argv[i] === "--pages" && Number.isInteger(v) && v > 0) out.pages = v;
    else if (argv[i] === "--tail-seconds" && Number.isInteger(v) && v >= 0) out.tailSeconds = v;
    else
      throw new Error(
        `usage: bun bench/freeze-sequence.bench.ts [--hosts N] [--pages N] [--tail-seconds S] [--no-faults] (bad: ${argv[i]})`,
      );
    i++;
  }
  return out;
}

const { hosts, pages: pagesPerHost, tailSeconds, faults } = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), "freeze-sequence-"));
const web = await startTestWeb({ hosts, pagesPerHost, special: true });
const seedsFile = join(dir, "seeds.txt");
writeFileSync(seedsFile, web.hosts.map((h) => `${web.url(h)}\n`).join(""));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const up = Bun.spawn(
  [
    process.execPath,
    "run",
    "cluster",
    "up",
    "--dir",
    join(dir, "cluster"),
    "--proxy",
    web.proxyUrl,
    "--frontiers",
    "2",
    "--fetchers",
    "2",
    "--coordinators",
    "2",
    "--",
    "--min-gap",
    `${MIN_GAP_MS}ms`,
  ],
  { cwd: REPO_ROOT, stdout: Bun.file(join(dir, "up.log")), stderr: Bun.file(join(dir, "up.err")) },
);
const frozen = new Set<number>();
const thawAll = () => {
  for (const pid of frozen) thaw(pid);
};
process.on("exit", thawAll);

try {
  const info = await waitForClusterFile(join(dir, "cluster", "cluster.json"), () => up.exitCode !== null);
  const crawlctl = async (args: string[]) => {
    const p = Bun.spawn([process.execPath, "run", "crawlctl", ...args, "--coordinator", info.grpcAddress, "--token", info.token], {
      cwd: REPO_ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { out, err, code };
  };
  const seeded = await crawlctl(["seed", "add", "--file", seedsFile]);
  if (seeded.code !== 0) throw new Error(`seed add failed: ${seeded.out}${seeded.err}`);
  const start = performance.now() + performance.timeOrigin;
  log(`cluster ready, ${web.hosts.length} home pages seeded`);

  const pidOf = (id: string) => readCluster(join(dir, "cluster", "cluster.json")).processes.find((p) => p.id === id)?.pid ?? null;
  const leader = async (): Promise<string> => {
    for (const url of info.adminUrl.split(",")) {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
      if (res?.status === 200) {
        const entry = readCluster(join(dir, "cluster", "cluster.json")).processes.find(
          (p) => p.role === "coordinator" && url.endsWith(`:${p.ports["http"]}`),
        );
        if (entry) return entry.id;
      }
    }
    throw new Error("no coordinator answers /readyz 200");
  };
  const statusTimes: Record<string, number> = {};
  const statusErrors: Record<string, string> = {};
  const freezeOne = async (name: string, id: string, ms: number) => {
    const pid = pidOf(id);
    if (pid === null) throw new Error(`${id} has no pid in cluster.json`);
    await freeze(pid);
    frozen.add(pid);
    const at = performance.now();
    log(`froze ${name} (${id}, pid ${pid}) for ${ms / 1000} s`);
    // Asked at once, and again until it answers: how long an operator waits for `crawlctl status`.
    const status = (async () => {
      for (;;) {
        const r = await crawlctl(["status", "--json"]);
        if (r.code === 0) return void (statusTimes[name] = performance.now() - at);
        statusErrors[name] ??= (r.err || r.out).trim().split("\n").slice(-1)[0] ?? `exit ${r.code}`;
        if (performance.now() - at > 60_000) return void (statusTimes[name] = Number.POSITIVE_INFINITY);
      }
    })();
    await Bun.sleep(ms);
    thaw(pid);
    frozen.delete(pid);
    log(`thawed ${id}`);
    await status;
  };

  await Bun.sleep(15_000);
  if (faults) {
    await freezeOne("frontier node", "frontier-1", 30_000);
    await freezeOne("leading coordinator", await leader(), 20_000);
    await freezeOne("nats-server", "nats-region-1", 8_000);
  } else {
    await Bun.sleep(58_000);
  }
  await Bun.sleep(tailSeconds * 1_000);
  const end = performance.now() + performance.timeOrigin;

  const inWindow = web.requests.filter((r) => r.startedAt >= start && r.startedAt <= end);
  const pages = inWindow.filter((r) => r.path !== "/robots.txt" && r.path !== "/sitemap.xml");
  const distinct = new Set(pages.map((r) => `${r.host}${r.path}`));
  const twice = fetchedAgainAfterSuccess(web.requests);
  const violations = web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 });
  const result = {
    windowSeconds: Math.round((end - start) / 1000),
    distinctPages: distinct.size,
    pageRequests: pages.length,
    fetchedTwice: twice.length,
    violations: violations.length,
    crawlctlStatusMs: Object.fromEntries(Object.entries(statusTimes).map(([k, v]) => [k, Math.round(v)])),
    crawlctlStatusFirstError: statusErrors,
    // Distinct pages first fetched in each 10 s of the window.
    newPagesPer10s: perTenSeconds(pages, start),
    firstTwice: twice.slice(0, 10),
    firstViolations: violations.slice(0, 10).map((v) => v.message),
  };
  console.log(JSON.stringify(result, null, 1));
  const ok =
    distinct.size >= 8_000 && twice.length <= 40 && violations.length === 0 && Object.values(statusTimes).every((ms) => ms <= 20_000);
  log(ok ? "PASS: >= 8,000 distinct, <= 40 twice, 0 violations, status within 20 s" : "FAIL: a target was missed (above)");
} finally {
  thawAll();
  up.kill("SIGTERM");
  await Promise.race([up.exited, Bun.sleep(120_000)]);
  await web.close();
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
}

function perTenSeconds(pages: readonly RequestRecord[], start: number): number[] {
  const out: number[] = [];
  const seen = new Set<string>();
  for (const r of [...pages].sort((a, b) => a.startedAt - b.startedAt)) {
    const key = `${r.host}${r.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const i = Math.floor((r.startedAt - start) / 10_000);
    while (out.length <= i) out.push(0);
    out[i]!++;
  }
  return out;
}

/** Pages asked again after an earlier request for them was answered 2xx. */
function fetchedAgainAfterSuccess(requests: readonly RequestRecord[]): string[] {
  const ok = new Set<string>();
  const again = new Set<string>();
  for (const r of [...requests].sort((a, b) => a.startedAt - b.startedAt)) {
    if (r.path === "/robots.txt") continue;
    const key = `${r.host}${r.path}`;
    if (ok.has(key)) again.add(key);
    if (r.completed && r.status >= 200 && r.status < 300) ok.add(key);
  }
  return [...again];
}

function readCluster(file: string): ClusterFile {
  return JSON.parse(readFileSync(file, "utf8")) as ClusterFile;
}
