/**
 * The scale bench (issue 25): how the real frontier (Frontier + FrontierStore + LocalBloomSeenSet, as
 * `crawl` builds them) copes with a million hosts on one node, with no network: a synthetic web answers
 * every task at once (synthetic-web.ts) and the frontier runs on a clock the driver moves, so politeness
 * gaps pass instantly. For each size it measures admission (links/s with the seen check), dispatch
 * (tasks/s through nextTasks + completeMany once the queue is big), memory (RSS and JS heap per host and
 * per queued URL, and where the per-host bytes go) and disk (bytes per queued URL, the Bloom file).
 *
 * Each size runs in a process of its own (run-size.ts), so one size's heap never weighs on the next and
 * RSS is the size's own. Prints a table per size and a JSON line last (report.ts).
 *
 *   bun run bench:scale                                    # 10k and 100k hosts, 10 URLs queued per host
 *   bun bench/scale/scale.bench.ts --hosts 1000000 --queued 10000000 --max-seconds 300
 *
 * Flags: --hosts a,b,c (default 10000,100000); --queued N URLs to fill each size to (default 10 x hosts);
 * --links N per page (30); --cross F share of them to other hosts (0.1); --fresh N new links per page
 * (default: queued / hosts - 1, so the first wave fills the target evenly); --dated F share of dated paths
 * (0); --batch N pages per admit call and tasks per nextTasks/completeMany (512, the crawl loop's group
 * commit); --dispatch-tasks N (default max(200,000, 4 x hosts)); --max-seconds S per phase (300);
 * --fetch-ms N each fetch's duration on the frontier's clock (100); --bare-results: page results carry no
 * links (dispatch alone, without admitting what pages found); --max-queued N the frontier's size limit, as
 * `crawl --max-queued` (0, the default: none; with one the store keeps the queue's drop-order index); --dir D
 * for the scratch stores (the system's temporary directory); --keep to keep them; --cache-mib N sets SQLite's
 * page cache (the store's 128 MiB otherwise), to weigh memory against speed; --gc-every N runs a full
 * collection after every N frontier calls (outside the timed calls, its time printed apart), to see how much
 * of the RSS is garbage between collections. The allocators' settings (MIMALLOC_PURGE_DELAY,
 * BUN_JSC_heapGrowthMaxIncrease) are the environment's, or what `bun run crawl` sets (kit/allocator-env.ts).
 * With BUN_JSC_logGC=1 in the environment, JSC logs its collections to stderr; gc-pauses.ts sums up their pauses.
 */
import { tmpdir } from "node:os";
import { allocatorEnv } from "../../kit/allocator-env.ts";
import { jsonLine, table } from "./report.ts";
import { runSize, type SizeOptions, type SizeResult } from "./run-size.ts";

interface BenchArgs {
  hosts: number[];
  queued?: number;
  links: number;
  cross: number;
  fresh?: number;
  dated: number;
  batch: number;
  dispatchTasks?: number;
  maxSeconds: number;
  fetchMs: number;
  bareResults: boolean;
  maxQueued: number;
  dir: string;
  keep: boolean;
  cacheMib?: number;
  gcEvery?: number;
}

function parseArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = {
    hosts: [10_000, 100_000],
    links: 30,
    cross: 0.1,
    dated: 0,
    batch: 512,
    maxSeconds: 300,
    fetchMs: 100,
    bareResults: false,
    maxQueued: 0,
    dir: tmpdir(),
    keep: false,
  };
  const num = (flag: string, text: string | undefined, min = 0): number => {
    const v = Number(text);
    if (text === undefined || !Number.isFinite(v) || v < min) throw new Error(`${flag} needs a number >= ${min}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    switch (flag) {
      case "--hosts":
        args.hosts = (value ?? "").split(",").map((h) => num(flag, h.replace(/_/g, ""), 1));
        break;
      case "--queued":
        args.queued = num(flag, value, 1);
        break;
      case "--links":
        args.links = num(flag, value, 1);
        break;
      case "--cross":
        args.cross = num(flag, value);
        break;
      case "--fresh":
        args.fresh = num(flag, value, 1);
        break;
      case "--dated":
        args.dated = num(flag, value);
        break;
      case "--batch":
        args.batch = num(flag, value, 1);
        break;
      case "--dispatch-tasks":
        args.dispatchTasks = num(flag, value);
        break;
      case "--max-seconds":
        args.maxSeconds = num(flag, value);
        break;
      case "--fetch-ms":
        args.fetchMs = num(flag, value);
        break;
      case "--gc-every":
        args.gcEvery = num(flag, value, 1);
        break;
      case "--cache-mib":
        args.cacheMib = num(flag, value, 1);
        break;
      case "--max-queued":
        args.maxQueued = num(flag, value);
        break;
      case "--dir":
        args.dir = value ?? args.dir;
        break;
      case "--keep":
        args.keep = true;
        continue;
      case "--bare-results":
        args.bareResults = true;
        continue;
      default:
        throw new Error(`unknown flag ${flag} (see the header of bench/scale/scale.bench.ts)`);
    }
    i++;
  }
  return args;
}

/** The options of one size. */
function sizeOptions(a: BenchArgs, hosts: number): SizeOptions {
  const queued = a.queued ?? 10 * hosts;
  const cross = Math.round(a.links * a.cross);
  // By default the first wave (every host's home page) brings each host to about queued / hosts URLs.
  const fresh = Math.min(a.links - cross, a.fresh ?? Math.max(1, Math.ceil(queued / hosts) - 1));
  return {
    hosts,
    queued,
    links: a.links,
    cross: a.cross,
    fresh,
    dated: a.dated,
    fetchMs: a.fetchMs,
    bareResults: a.bareResults,
    batch: a.batch,
    maxSeconds: a.maxSeconds,
    dispatchTasks: a.dispatchTasks ?? Math.max(200_000, 4 * hosts),
    maxQueued: a.maxQueued,
    dir: a.dir,
    keep: a.keep,
    ...(a.cacheMib === undefined ? {} : { cacheMib: a.cacheMib }),
    ...(a.gcEvery === undefined ? {} : { gcEvery: a.gcEvery }),
  };
}

/** Runs one size in a child process; resolves with its result (the child's last stdout line). */
async function runChild(options: SizeOptions): Promise<SizeResult> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--child", JSON.stringify(options)], {
    stdout: "pipe",
    stderr: "inherit",
    // As `bun run crawl` runs (package.json): the allocator's settings, unless the shell set them.
    env: { ...process.env, ...allocatorEnv(process.env) },
  });
  const out = await new Response(child.stdout).text();
  const code = await child.exited;
  const last = out.trimEnd().split("\n").at(-1) ?? "";
  if (code !== 0 || !last.startsWith("{")) throw new Error(`the run of ${options.hosts} hosts failed (exit ${code})`);
  return JSON.parse(last) as SizeResult;
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "--child") {
    const result = await runSize(JSON.parse(argv[1]!) as SizeOptions);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const args = parseArgs(argv);
  const results: SizeResult[] = [];
  for (const hosts of args.hosts) {
    const result = await runChild(sizeOptions(args, hosts));
    process.stdout.write(table(result));
    results.push(result);
  }
  process.stdout.write(`${jsonLine(results)}\n`);
}

await main(process.argv.slice(2));
