/**
 * Where a dispatched task's time goes (issue 25): one size of the scale bench (run-size.ts, the same
 * options), in this process, with every synchronous method of the frontier's parts and of the store's
 * tables timed while `nextTasks` or `completeMany` runs, and each transaction's COMMIT timed apart (its
 * CPU split into user and system, the WAL frames each wrote, and the commits that ran a WAL checkpoint, over
 * 40 ms, counted). Prints
 * per task: how often each method ran and its exclusive time (its own, without the timed methods it
 * called), the largest first. A sampling profile (`bun --cpu-prof`) lost most of the time spent in SQLite
 * (its samples inside the transaction never showed), hence this.
 *
 *   bun bench/scale/call-times.ts --hosts 100000 --queued 1000000 --max-seconds 60
 *
 * Flags as scale.bench.ts (one size); the timing adds about 5-10 % to every call. Not a rate to quote: run
 * scale.bench.ts for those.
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { WaitingHostHeap } from "../../core/politeness/index.ts";
import { ActiveHosts } from "../../engine/frontier/active-hosts.ts";
import { Admission } from "../../engine/frontier/admission.ts";
import { Frontier } from "../../engine/frontier/frontier.ts";
import { HostSitemaps } from "../../engine/frontier/host-sitemaps.ts";
import { ReadyQueues } from "../../engine/frontier/ready-queues.ts";
import { ResultEffects } from "../../engine/frontier/result-effects.ts";
import { Scheduling } from "../../engine/frontier/scheduling.ts";
import { Screening } from "../../engine/frontier/screening.ts";
import { ColdHostTable } from "../../engine/frontier/store/cold-host-table.ts";
import { FrontierStore } from "../../engine/frontier/store/frontier-store.ts";
import { HostStateTable } from "../../engine/frontier/store/host-state-table.ts";
import { QueueTable } from "../../engine/frontier/store/queue-table.ts";
import { RecentUrlLog } from "../../engine/frontier/store/recent-url-log.ts";
import { RobotsTable } from "../../engine/frontier/store/robots-table.ts";
import { ScheduleTable } from "../../engine/frontier/store/schedule-table.ts";
import { SitemapTable } from "../../engine/frontier/store/sitemap-table.ts";
import { UrlTable } from "../../engine/frontier/store/url-table.ts";
import { runSize, type SizeOptions } from "./run-size.ts";

type Method = (...args: unknown[]) => unknown;

interface Stat {
  calls: number;
  ms: number;
}

const stats = new Map<string, Stat>();
/** Time spent in timed callees of each open timed call, innermost last. */
const open: number[] = [];
/** Inside nextTasks or completeMany. */
let inside = 0;
const commit = { user: 0, system: 0, checkpoints: 0, checkpointMs: 0, calls: 0, bytes: 0, all: 0 };

/**
 * Bytes this thread has passed to write(2) (Linux /proc/thread-self/io `wchar`; 0 elsewhere): around a COMMIT,
 * the WAL frames it appended (4,096 B a page + a 24 B header), and the pages a checkpoint it ran copied.
 */
function threadWrites(): number {
  try {
    const m = /wchar: (\d+)/.exec(readFileSync("/proc/thread-self/io", "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
const WAL_FRAME_BYTES = 4096 + 24;

function add(name: string, ms: number): void {
  const s = stats.get(name);
  if (s) {
    s.calls++;
    s.ms += ms;
  } else {
    stats.set(name, { calls: 1, ms });
  }
}

/** Runs `fn`, adding its exclusive time to `name` when inside a dispatch call. */
function timedCall<T>(name: string, fn: () => T): T {
  if (inside === 0) return fn();
  open.push(0);
  const start = performance.now();
  try {
    return fn();
  } finally {
    const ms = performance.now() - start;
    const inner = open.pop() ?? 0;
    if (open.length > 0) open[open.length - 1]! += ms;
    add(name, ms - inner);
  }
}

/** Times every synchronous method of a class (async ones would interleave: left alone). */
function wrapClass(cls: { prototype: object; name: string }): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === "constructor" || !d || typeof d.value !== "function") continue;
    const fn = d.value as Method;
    if (fn.constructor.name === "AsyncFunction") continue;
    const name = `${cls.name}.${key}`;
    proto[key] = function (this: unknown, ...args: unknown[]) {
      return timedCall(name, () => fn.apply(this, args));
    };
  }
}

for (const cls of [
  FrontierStore,
  QueueTable,
  UrlTable,
  HostStateTable,
  RobotsTable,
  ScheduleTable,
  SitemapTable,
  ColdHostTable,
  RecentUrlLog,
  ActiveHosts,
  Scheduling,
  ResultEffects,
  Admission,
  Screening,
  HostSitemaps,
  ReadyQueues,
  WaitingHostHeap,
]) {
  wrapClass(cls);
}

// Transactions: BEGIN, the body and COMMIT run by hand (as bun:sqlite's `transaction` does, savepoints when
// nested), so the COMMIT is timed apart.
let depth = 0;
(Database.prototype as unknown as { transaction: unknown }).transaction = function (this: Database, body: Method) {
  return (...args: unknown[]) => {
    const db = this;
    const outer = depth === 0;
    db.exec(outer ? "BEGIN" : "SAVEPOINT nested");
    depth++;
    let result: unknown;
    try {
      result = body(...args);
    } catch (error) {
      depth--;
      db.exec(outer ? "ROLLBACK" : "ROLLBACK TO nested");
      if (!outer) db.exec("RELEASE nested");
      throw error;
    }
    depth--;
    if (!outer) {
      db.exec("RELEASE nested");
      return result;
    }
    const cpu = process.cpuUsage();
    const written = inside > 0 ? threadWrites() : 0;
    const t = performance.now();
    timedCall("COMMIT", () => db.exec("COMMIT"));
    if (inside > 0) {
      const used = process.cpuUsage(cpu);
      commit.user += used.user;
      commit.system += used.system;
      // Frames counted from the commits that ran no checkpoint (a checkpoint's copying is other bytes).
      const bytes = threadWrites() - written;
      commit.all++;
      if (performance.now() - t <= 40) {
        commit.calls++;
        commit.bytes += bytes;
      }
    }
    return result;
  };
};
const commitStat = () => stats.get("COMMIT");

const proto = Frontier.prototype as unknown as Record<string, Method>;
for (const key of ["nextTasks", "completeMany"]) {
  const fn = proto[key]!;
  proto[key] = function (this: unknown, ...args: unknown[]) {
    inside++;
    const before = commitStat()?.ms ?? 0;
    const done = () => {
      inside--;
      const ms = (commitStat()?.ms ?? 0) - before;
      // A commit that ran a checkpoint (every 64 MiB of WAL) takes tens of milliseconds; the others a few.
      if (ms > 40) {
        commit.checkpoints++;
        commit.checkpointMs += ms;
      }
    };
    const out = fn.apply(this, args);
    if (out instanceof Promise) return out.finally(done);
    done();
    return out;
  };
}

function options(argv: readonly string[]): SizeOptions {
  const flag = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const hosts = flag("--hosts", 100_000);
  const queued = flag("--queued", 10 * hosts);
  const links = flag("--links", 30);
  const cross = flag("--cross", 0.1);
  return {
    hosts,
    queued,
    links,
    cross,
    fresh: Math.min(links - Math.round(links * cross), flag("--fresh", Math.max(1, Math.ceil(queued / hosts) - 1))),
    dated: flag("--dated", 0),
    fetchMs: flag("--fetch-ms", 100),
    bareResults: argv.includes("--bare-results"),
    batch: flag("--batch", 512),
    maxSeconds: flag("--max-seconds", 300),
    dispatchTasks: flag("--dispatch-tasks", Math.max(200_000, 4 * hosts)),
    maxQueued: flag("--max-queued", 0),
    dir: tmpdir(),
    keep: false,
  };
}

const result = await runSize(options(process.argv.slice(2)));
const d = result.dispatch;
const tasks = d.tasks.robots + d.tasks.sitemap + d.tasks.page;
const per = (ms: number) => ((ms * 1000) / tasks).toFixed(2).padStart(7);
console.log(
  `${tasks.toLocaleString("en-US")} tasks (robots.txt ${d.tasks.robots}, sitemaps ${d.tasks.sitemap}, pages ${d.tasks.page}); ` +
    `nextTasks ${((d.next.seconds * 1e6) / tasks).toFixed(1)} µs/task, completeMany ${((d.complete.seconds * 1e6) / tasks).toFixed(1)} (wall, timing included)`,
);
console.log(
  `COMMIT CPU ${(commit.user / tasks).toFixed(1)} µs/task user + ${(commit.system / tasks).toFixed(1)} system; ` +
    `calls whose commit took over 40 ms (a WAL checkpoint ran): ${commit.checkpoints}, their commits ${per(commit.checkpointMs).trim()} µs/task`,
);
if (commit.calls > 0) {
  // Per task of the dispatch, scaled from the commits without a checkpoint to all of them.
  console.log(
    `COMMIT writes: ${(commit.bytes / commit.calls / WAL_FRAME_BYTES).toFixed(0)} WAL frames a commit (${commit.calls} commits without a checkpoint), ` +
      `about ${((commit.bytes / commit.calls / WAL_FRAME_BYTES) * (commit.all / tasks)).toFixed(2)} frames a task`,
  );
}
console.log("method                                   calls/task  exclusive µs/task  µs/call");
let sum = 0;
for (const [name, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
  sum += s.ms;
  if ((s.ms * 1000) / tasks < 0.1) continue;
  console.log(
    `${name.padEnd(40)} ${(s.calls / tasks).toFixed(2).padStart(10)}  ${per(s.ms)}  ${((s.ms * 1000) / s.calls).toFixed(2).padStart(15)}`,
  );
}
console.log(
  `timed methods together: ${per(sum).trim()} µs/task of ${(((d.next.seconds + d.complete.seconds) * 1e6) / tasks).toFixed(1)} in the two calls`,
);
