/**
 * Throughput of the JetStream bus on this machine (`bun bench/bus.bench.ts`), against a real nats-server
 * started on a free port with a fresh store (tests/support/nats.ts):
 *
 *  - publish: N fetch tasks (protobuf, Nats-Msg-Id) fired without awaiting each, through the bus's
 *    publish window; every promise resolves on its JetStream ack. The await-each figure beside it is the
 *    baseline the window exists to beat.
 *  - publish of url batches (48 links, as a parsed page yields) and of results.
 *  - consume+ack: draining a partition's results (consume mode, one handler at a time, ack per message),
 *    and draining fetch tasks with 64 handlers (fetch mode, pulls only as many as it has free slots).
 *
 * Sizes scale with BENCH_SCALE (default 1: 100k messages).
 */
import { connectNats, JetStreamBus } from "../adapters/nats/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../core/model/index.ts";
import { startNats } from "../tests/support/nats.ts";

const scale = Number(process.env.BENCH_SCALE ?? "1");
const N = Math.max(1000, Math.round(100_000 * scale));
const AWAIT_EACH = Math.max(500, Math.round(5_000 * scale));
const BATCHES = Math.max(200, Math.round(10_000 * scale));

const server = await startNats({ jetstream: true });
const pub = await connectNats(server.url, "bench-publisher");
const sub = await connectNats(server.url, "bench-consumer");
const pubBus = new JetStreamBus(pub, { onError: (err, where) => console.error(where, err) });
const subBus = new JetStreamBus(sub, { onError: (err, where) => console.error(where, err) });
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString()} msgs/s`;

try {
  console.log(`nats-server ${pub.info?.version} on ${server.url}; N=${N.toLocaleString()}`);
  await pubBus.ensureRegion("bench", 4);

  let t = performance.now();
  for (let i = 0; i < AWAIT_EACH; i++) await pubBus.publishTask("bench", task(`warm-${i}`));
  console.log(`publish task, await each          ${rate(AWAIT_EACH, performance.now() - t)}  (${AWAIT_EACH.toLocaleString()})`);

  t = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => pubBus.publishTask("bench", task(`t-${i}`))));
  const taskMs = performance.now() - t;
  console.log(`publish task, window of 2048      ${rate(N, taskMs)}`);

  t = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => pubBus.publishResult("bench", result(`r-${i}`, 1))));
  console.log(`publish result, window of 2048    ${rate(N, performance.now() - t)}`);

  const page = links(48);
  t = performance.now();
  await Promise.all(Array.from({ length: BATCHES }, () => pubBus.publishUrls("bench", 2, page)));
  const urlMs = performance.now() - t;
  console.log(
    `publish 48-link batch             ${rate(BATCHES, urlMs)}  (${Math.round((BATCHES * 48 * 1000) / urlMs).toLocaleString()} links/s)`,
  );

  await drain("consume+ack results (1 handler)  ", N, (onMsg) => subBus.consumeResults("bench", 1, async (d) => (onMsg(), d.ack())));
  await drain("consume+ack url batches          ", BATCHES, (onMsg) => subBus.consumeUrls("bench", 2, async (d) => (onMsg(), d.ack())));
  await drain("fetch+ack tasks (64 handlers)     ", N + AWAIT_EACH, (onMsg) =>
    subBus.consumeTasks("bench", async (d) => (onMsg(), d.ack()), { concurrency: 64 }),
  );
} finally {
  await pubBus.close();
  await subBus.close();
  await pub.close();
  await sub.close();
  await server.stop();
}

async function drain(label: string, expected: number, subscribe: (onMsg: () => void) => { stop(): Promise<void> }): Promise<void> {
  let count = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const t = performance.now();
  const s = subscribe(() => {
    if (++count === expected) done();
  });
  await finished;
  const ms = performance.now() - t;
  await s.stop();
  console.log(`${label} ${rate(expected, ms)}`);
}

function task(taskId: string): FetchTask {
  return {
    taskId,
    kind: "page",
    url: `https://www.host${taskId.length}.example.com/news/${taskId}.html`,
    host: `www.host${taskId.length}.example.com`,
    partition: 3,
    depth: 2,
    redirectHops: 0,
    etag: '"abc"',
    hostGapMs: 1000,
    issuedAt: Date.now(),
  };
}

function result(taskId: string, partition: number): FetchResult {
  const now = Date.now();
  return {
    taskId,
    kind: "response",
    taskKind: "page",
    url: `https://example.com/${taskId}`,
    host: "example.com",
    partition,
    status: 200,
    startedAt: now - 250,
    endedAt: now,
    fingerprint: "ab".repeat(32),
    simhash: "00ff00ff00ff00ff",
    changed: false,
    linksFound: 48,
    bytes: 25_000,
  };
}

function links(n: number): DiscoveredUrl[] {
  return Array.from({ length: n }, (_, i) => ({
    url: `https://www.site${i}.example.org/section/${i}/article-${i * 7919}.html`,
    host: `www.site${i}.example.org`,
    depth: 3,
    sourceUrl: "https://example.com/index.html",
    redirectHops: 0,
  }));
}
