/**
 * What a fetch node spends per task on what the embedded crawler does not do (issue 26): take the task from
 * JetStream, claim it in the region's Redis, publish its links and result, mark it done, ack it. The fetch
 * path itself (HTTP, parse, SimHash, WARC) is left out (fetch-path.bench.ts and http.bench.ts measure it):
 * the node's worker hands back, for every task, the output the real fetch path made of one test-web page
 * (25 KB, 30 links), with the task's id, URL and partition put in, and its same-host links moved to the
 * task's host (siteN.test). Everything else is real and as the
 * cluster runs it: a FetchNode on a JetStreamBus, RedisFetchClaims, a nats-server with JetStream and a
 * redis-server started here on loopback.
 *
 * The tasks (2,000 hosts, one partition per host as the frontier computes it) are published first, by a
 * child process; then the node starts and the clock runs until the fetch stream is empty (every task acked). Reported per task: the
 * node's CPU (this process: nothing else runs in it meanwhile), nats-server's (/proc) and redis-server's
 * (`INFO cpu`), and the Redis commands (`INFO commandstats`). CPU time moves least when the box is shared.
 *
 *   bun bench/fetch-node.bench.ts [tasks=20000] [concurrency=64] [--no-links] [--memory-claims]
 *
 * `--no-links` and `--memory-claims` take a part out, to tell what it costs by the difference.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { MemoryClusterState, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { connectNats, JetStreamBus } from "../adapters/nats/index.ts";
import { connectRedis, RedisFetchClaims } from "../adapters/redis/index.ts";
import { streams } from "../core/cluster/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import type { TaskRunner, WorkOutput } from "../core/ports/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { startHttpServer } from "../engine/fetch/http/test-servers.ts";
import { FetchNode } from "../fetch-node/node.ts";
import { nodeOptions, openTestFetchPath, P } from "../fetch-node/testing.ts";
import { startNats } from "../tests/support/nats.ts";
import { startRedis } from "../tests/support/redis.ts";
import { sitePage } from "../tests/testweb/site.ts";
import { prosePool } from "../tests/testweb/text.ts";

const HOSTS = 2_000;
const REGION = "us";

if (process.argv[2] === "--publish") {
  // The publishing child: `--publish <nats url> <tasks>`.
  const nc = await connectNats(process.argv[3]!, "bench-publisher");
  const publisher = new JetStreamBus(nc, { onError: () => {} });
  await publisher.ensureRegion(REGION, P);
  const count = Number(process.argv[4]);
  for (let i = 0; i < count; i += 500) {
    const batch = Array.from({ length: Math.min(500, count - i) }, (_, k) => i + k);
    await Promise.all(batch.map((n) => publisher.publishTask(REGION, task(n, `http://site${n % HOSTS}.test/page/${n}`))));
  }
  await publisher.close();
  await nc.close();
  process.exit(0);
}

const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const [TASKS, CONCURRENCY] = [Number(positional(0) ?? 20_000), Number(positional(1) ?? 64)];
/** `--no-links`: the tasks' outputs carry no links (what the links cost is the difference). */
const NO_LINKS = flags.includes("--no-links");
/** `--memory-claims`: the claims in this process's memory instead of Redis (what Redis claims cost). */
const MEMORY_CLAIMS = flags.includes("--memory-claims");

const nats = await startNats();
const redis = await startRedis();
const dir = mkdtempSync(join(tmpdir(), "fetch-node-bench-"));
const shape = { hosts: HOSTS, pagesPerHost: 1000, linksPerPage: 30, pageBytes: 25_000, seed: 1 };
const pool = prosePool(shape.seed);
const web = await startHttpServer((req, res) => {
  const page = sitePage(shape, pool, "site1.test", req.url ?? "/");
  res.setHeader("content-type", page.contentType);
  res.statusCode = page.status;
  res.end(page.body);
});

try {
  // One real output of the fetch path: a test-web page's result and its links (as site1.test's, by URL).
  const path = await openTestFetchPath(join(dir, "warc"), "bench", 4);
  const sample = await path.worker.run(task(0, `${web.origin}/page/7`));
  await path.close();
  // The page's links as each host's own: its same-host links on that host (as the crawl's pages have them,
  // so a host's links go to its own partition's batch, and batches fill as they do in a crawl), the others
  // as they are. Made before the clock starts.
  const sameHost = (l: { url: string }) => new URL(l.url).port === String(web.port);
  const linksOf = Array.from({ length: HOSTS }, (_, h) =>
    sample.links.map((l) =>
      sameHost(l)
        ? { ...l, url: l.url.replace(web.origin, `http://site${h}.test`), host: `site${h}.test`, sourceUrl: `http://site${h}.test/` }
        : l,
    ),
  );
  const linksPerPage = sample.links.length;
  const worker: TaskRunner = {
    run: async (t: FetchTask): Promise<WorkOutput> => ({
      result: { ...sample.result, taskId: t.taskId, url: t.url, host: t.host, partition: t.partition },
      links: NO_LINKS ? [] : linksOf[Number(t.host.slice(4, -5))]!,
    }),
  };

  // Published by a process of its own, so this one's CPU (and a profile of it) is the node's alone.
  const published = Bun.spawnSync([process.execPath, import.meta.path, "--publish", nats.url, String(TASKS)], { stderr: "inherit" });
  if (published.exitCode !== 0) throw new Error("publishing the tasks failed");
  const publisherNc = await connectNats(nats.url, "bench-watcher");
  const jsm = await jetstreamManager(publisherNc);
  const fetchStream = streams.fetch(REGION);
  process.stderr.write(`published ${TASKS} tasks; starting the fetch node (concurrency ${CONCURRENCY})\n`);

  const nodeNc = await connectNats(nats.url, "bench-fetch-node");
  const bus = new JetStreamBus(nodeNc, { onError: () => {}, localRegion: REGION });
  // Counted on the way out: how many link messages the node's batching makes per task.
  const linkMessages = { messages: 0, urls: 0 };
  const publishUrls = bus.publishUrls.bind(bus);
  bus.publishUrls = (region, partition, urls) => {
    linkMessages.messages++;
    linkMessages.urls += urls.length;
    return publishUrls(region, partition, urls);
  };
  const client = await connectRedis(redis.url);
  const claims = MEMORY_CLAIMS ? new MemoryFetchClaims() : new RedisFetchClaims(client);
  const node = new FetchNode(
    nodeOptions({ bus, state: new MemoryClusterState(), worker, claims, concurrency: CONCURRENCY, claimTtlMs: 600_000 }),
  );

  await client.sendCommand(["CONFIG", "RESETSTAT"]);
  const redisBefore = await redisCpuSeconds(client);
  const natsBefore = procCpuSeconds(nats.pid);
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  await node.start();
  for (;;) {
    const info = await jsm.streams.info(fetchStream);
    if (info.state.messages === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const nodeCpuS = (cpu.user + cpu.system) / 1e6;
  const natsCpuS = procCpuSeconds(nats.pid) - natsBefore;
  const redisCpuS = (await redisCpuSeconds(client)) - redisBefore;
  const commands = await redisCommands(client);
  await node.stop(5_000);
  await claims.close();
  await client.close();
  await bus.close();
  await nodeNc.close();
  await publisherNc.close();

  const us = (s: number) => ((s * 1e6) / TASKS).toFixed(1);
  const total = Object.values(commands).reduce((a, b) => a + b, 0);
  const top = Object.entries(commands)
    .sort((a, b) => b[1] - a[1])
    .map(([c, n]) => `${c} ${(n / TASKS).toFixed(2)}`)
    .join(", ");
  console.log(
    `fetch node, ${TASKS} tasks (${NO_LINKS ? 0 : linksPerPage} links each, claims in ${MEMORY_CLAIMS ? "memory" : "Redis"}), concurrency ${CONCURRENCY}: ${(TASKS / wallS).toFixed(0)} tasks/s, load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}\n` +
      `  CPU per task: fetch node ${us(nodeCpuS)} µs, nats-server ${us(natsCpuS)} µs, redis-server ${us(redisCpuS)} µs\n` +
      `  redis: ${(total / TASKS).toFixed(2)} commands per task (${top})\n` +
      `  links: ${(linkMessages.messages / TASKS).toFixed(3)} messages per task, ${(linkMessages.urls / Math.max(1, linkMessages.messages)).toFixed(1)} URLs per message`,
  );
} finally {
  await web.close();
  await redis.stop();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}

function positional(i: number): string | undefined {
  return process.argv.slice(2).filter((a) => !a.startsWith("--"))[i];
}

function task(i: number, url: string): FetchTask {
  const host = new URL(url).host;
  return {
    taskId: `bench-${i}`,
    kind: "page",
    url,
    host,
    partition: partitionOf(host, P),
    depth: 1,
    redirectHops: 0,
    hostGapMs: 1_000,
    issuedAt: Date.now(),
  };
}

/** A process's user + system CPU seconds, from /proc. */
function procCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function redisCpuSeconds(client: Awaited<ReturnType<typeof connectRedis>>): Promise<number> {
  const info = await client.sendCommand<string>(["INFO", "cpu"]);
  const get = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return get("used_cpu_sys") + get("used_cpu_user");
}

async function redisCommands(client: Awaited<ReturnType<typeof connectRedis>>): Promise<Record<string, number>> {
  const info = await client.sendCommand<string>(["INFO", "commandstats"]);
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) if (m[1] !== "info" && m[1] !== "config") out[m[1]!] = Number(m[2]);
  return out;
}
