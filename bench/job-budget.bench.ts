/**
 * What the jobs' page budgets cost (issue 28; core/ports/job-budget.ts, engine/frontier/job-budgets.ts),
 * `bun bench/job-budget.bench.ts`:
 *
 *  - the cluster adapter (NatsKvJobBudget) against a real nats-server on a free port with a fresh store:
 *    ms per take (a chunk), per settle (one per dispatch round and budgeted job), per give; settles from
 *    two holders at once (two frontier nodes), and the 100 settles of a round that spent units of 100 jobs;
 *  - the frontier's dispatch with no network (the memory adapter), 2,000 hosts of 10 URLs: page tasks/s of
 *    nextTasks + settleBudgets + completeMany, with every URL of job default, and with every URL of a job
 *    whose maxPages is larger than the crawl (so it is never held: the bookkeeping alone is measured).
 */
import { LocalBloomSeenSet, MemoryJobBudget } from "../adapters/memory/index.ts";
import { connectNats, NatsKvClusterState, NatsKvJobBudget } from "../adapters/nats/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../core/model/index.ts";
import { hostKeyOf } from "../core/url/index.ts";
import { Frontier } from "../engine/frontier/index.ts";
import { FrontierStore } from "../engine/frontier/store/frontier-store.ts";
import { startNats } from "../tests/support/nats.ts";

const OPS = Number(process.env.BENCH_OPS ?? "2000");
const ms = (t: number, n: number) => `${((performance.now() - t) / n).toFixed(3)} ms`;

const server = await startNats({ jetstream: true });
const [a, b] = await Promise.all([connectNats(server.url, "bench-a"), connectNats(server.url, "bench-b")]);
try {
  await NatsKvClusterState.open(a, { bucket: "bench-budgets" });
  const ka = await NatsKvJobBudget.open(a, { bucket: "bench-budgets" });
  const kb = await NatsKvJobBudget.open(b, { bucket: "bench-budgets" });
  console.log(`nats-server ${a.info?.version}; ${OPS} operations a row`);

  let t = performance.now();
  for (let i = 0; i < OPS; i++) {
    await ka.take(1, 1_000_000_000, "node-a", () => 1);
    await ka.settle(1, "node-a", 1);
  }
  const pair = (performance.now() - t) / OPS;
  t = performance.now();
  await ka.take(2, 1_000_000_000, "node-a", () => 1_000_000);
  for (let i = 0; i < OPS; i++) await ka.settle(2, "node-a", 1);
  const settle = (performance.now() - t) / OPS;
  console.log(`settle (one per round and job)          ${settle.toFixed(3)} ms`);
  console.log(`take a chunk (pair minus a settle)      ${(pair - settle).toFixed(3)} ms`);
  t = performance.now();
  for (let i = 0; i < OPS; i++) await ka.give(2, "node-a", 1);
  console.log(`give back                               ${ms(t, OPS)}`);

  await kb.take(2, 1_000_000_000, "node-b", () => 1_000_000);
  t = performance.now();
  await Promise.all([
    (async () => {
      for (let i = 0; i < OPS; i++) await ka.settle(2, "node-a", 1);
    })(),
    (async () => {
      for (let i = 0; i < OPS; i++) await kb.settle(2, "node-b", 1);
    })(),
  ]);
  console.log(`settle, two holders at once             ${ms(t, 2 * OPS)} a settle (wall)`);

  for (let job = 100; job < 200; job++) await ka.take(job, 1_000_000, "node-a", () => 1_000);
  const rounds = Math.max(10, Math.round(OPS / 100));
  t = performance.now();
  for (let r = 0; r < rounds; r++) await Promise.all(Array.from({ length: 100 }, (_, j) => ka.settle(100 + j, "node-a", 1)));
  console.log(`a round that spent units of 100 jobs    ${ms(t, rounds)} (settles at once)`);
} finally {
  await a.close();
  await b.close();
  await server.stop();
}

// ---- the frontier's dispatch, no network -----------------------------------------------------------------

const HOSTS = 2_000;
const PER_HOST = 10;

async function dispatch(job: number | undefined): Promise<{ tasksPerSecond: number; pages: number }> {
  const clock = { now: Date.UTC(2026, 11, 4) };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, HOSTS * PER_HOST * 2),
    policy: { ...DEFAULT_POLICY, sitemaps: "off", minGapMs: 0, gapMarginMs: 0 },
    partitions: 16,
    maxQueued: 10_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    budget: { budget: new MemoryJobBudget(), holder: "bench" },
  });
  if (job) frontier.setJob({ id: "bench", number: job, state: "running", maxPages: 1_000_000_000 });
  const seeds: DiscoveredUrl[] = [];
  for (let h = 0; h < HOSTS; h++)
    for (let i = 0; i < PER_HOST; i++) {
      const url = `http://h${h}.bench/p${i}`;
      seeds.push({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0, isSeed: true, ...(job ? { job } : {}) });
    }
  await frontier.addSeeds(seeds);
  let pages = 0;
  const t = performance.now();
  for (let round = 0; round < 200 && (frontier.queued > 0 || frontier.inFlight > 0); round++) {
    clock.now += 60_000;
    const tasks = frontier.nextTasks(10_000);
    await frontier.settleBudgets();
    const results = tasks.map((task) => ({ result: answer(task, clock.now), links: [] }));
    await frontier.completeMany(results);
    for (const task of tasks) if (task.kind === "page") pages++;
  }
  return { tasksPerSecond: Math.round((pages / (performance.now() - t)) * 1000), pages };
}

function answer(task: FetchTask, at: number): FetchResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: task.kind === "robots" ? 404 : 200,
    startedAt: at,
    endedAt: at + 1,
    linksFound: 0,
    bytes: 10,
    ...(task.job ? { job: task.job } : {}),
  } as FetchResult;
}

for (let i = 0; i < 2; i++) {
  const plain = await dispatch(undefined);
  const budgeted = await dispatch(7);
  console.log(
    `dispatch, ${HOSTS} hosts: job default ${plain.tasksPerSecond.toLocaleString()} page tasks/s (${plain.pages}); ` +
      `a budgeted job ${budgeted.tasksPerSecond.toLocaleString()} page tasks/s (${budgeted.pages})`,
  );
}
