import { expect, test } from "bun:test";
import { MemoryPartitionReplica } from "../../adapters/memory/index.ts";
import { FrontierStore } from "../../engine/frontier/index.ts";
import { silentLog } from "../../kit/log/index.ts";
import { StatePublisher } from "./publisher.ts";
import { ReplayRules } from "./replay-rules.ts";

const REGION = "r1";
const WRITER = { node: "n1", store: "s1" };

async function setup(opts: { lingerMs?: number } = {}) {
  const replica = new MemoryPartitionReplica();
  await replica.ensureRegion(REGION);
  const store = FrontierStore.open(":memory:", { journal: true });
  const publisher = new StatePublisher({
    store,
    journal: store.journal!,
    replica,
    region: REGION,
    writer: WRITER,
    lingerMs: opts.lingerMs,
    log: silentLog,
    now: Date.now,
  });
  publisher.start();
  return { replica, store, publisher };
}

function commit(store: FrontierStore, i: number): void {
  store.tx(() => store.enqueue({ partition: 0, host: "a.test", priority: 2, url: `http://a.test/${i}`, depth: 1, hops: 0, kind: "page" }));
}

/** Every row of partition 0 the replica holds, through the replay rules (copies skipped, gaps counted). */
function replayed(replica: MemoryPartitionReplica): { rows: number[]; gaps: number } {
  const rules = new ReplayRules();
  const rows: number[] = [];
  for (const e of replica.entries(REGION, 0)) for (const r of rules.feed(e)) rows.push(r.n);
  for (const item of rules.finish().map((r) => r.n)) rows.push(item);
  return { rows, gaps: rules.counts.gaps };
}

test("publisher - every committed row reaches the replica in order, and whenStored resolves once it has", async () => {
  const { replica, store, publisher } = await setup();
  for (let i = 0; i < 20; i++) commit(store, i);
  await publisher.whenStored(0, store.journal!.last(0));
  expect(replayed(replica)).toEqual({ rows: Array.from({ length: 20 }, (_, i) => i + 1), gaps: 0 });
  // The stored rows leave the journal (their acknowledgements are written together, a moment later).
  await until(() => store.journal!.backlog().rows === 0);
  await publisher.stop();
});

test("publisher - rows committed within the linger go in one message; a flush does not wait for it", async () => {
  const { replica, store, publisher } = await setup({ lingerMs: 300 });
  for (let i = 0; i < 10; i++) commit(store, i);
  await publisher.whenStored(0, store.journal!.last(0));
  expect(publisher.counts).toMatchObject({ messages: 1, rows: 10 });
  expect(replayed(replica)).toEqual({ rows: Array.from({ length: 10 }, (_, i) => i + 1), gaps: 0 });
  await publisher.stop();

  // A linger far longer than the test: flushed() sends at once.
  const slow = await setup({ lingerMs: 600_000 });
  commit(slow.store, 0);
  commit(slow.store, 1);
  await slow.publisher.flushed(0);
  expect(slow.publisher.counts).toMatchObject({ messages: 1, rows: 2 });
  await slow.publisher.stop();
});

test("publisher - a clean stop sends the rows still lingering: whoever waits for them is told yes", async () => {
  const { replica, store, publisher } = await setup({ lingerMs: 600_000 });
  commit(store, 0);
  commit(store, 1);
  const waiting = publisher.whenStored(0, store.journal!.last(0));
  await publisher.stop();
  await waiting;
  expect(replayed(replica)).toEqual({ rows: [1, 2], gaps: 0 });
  expect(store.journal!.backlog().rows).toBe(0);
});

test("publisher - a row stored but not yet acknowledged in the store is never sent twice, and stop writes the acknowledgements", async () => {
  const { replica, store, publisher } = await setup();
  for (let round = 0; round < 5; round++) {
    commit(store, round);
    // Each round's row is stored before the next commit, well within the acknowledgements' 50 ms.
    await publisher.whenStored(0, store.journal!.last(0));
  }
  const sent = replica
    .entries(REGION, 0)
    .flatMap((e) => (e.kind === "batch" ? (JSON.parse(e.body) as [number, unknown][]).map(([n]) => n) : []));
  expect(sent).toEqual([1, 2, 3, 4, 5]);
  await publisher.stop();
  expect(store.journal!.backlog().rows).toBe(0);
  expect(store.journal!.state(0)).toMatchObject({ ackedN: 5 });
});

test("publisher - a batch stored whose acknowledgement was lost is sent again as it was: no row is lost while more rows were committed meanwhile", async () => {
  const { replica, store, publisher } = await setup();
  replica.lostAcks = 1;
  commit(store, 0);
  // More rows come while the first send waits to be retried.
  for (let i = 1; i < 6; i++) commit(store, i);
  await publisher.whenStored(0, store.journal!.last(0));
  expect(publisher.counts.failures).toBe(1);
  expect(replayed(replica)).toEqual({ rows: [1, 2, 3, 4, 5, 6], gaps: 0 });
  await publisher.stop();
});

test("publisher - while the replica is down rows wait in the journal; the node stopping says no to whoever waits, and the rows go at the next start", async () => {
  const { replica, store, publisher } = await setup();
  replica.failWith = new Error("replica down");
  commit(store, 0);
  const waiting = publisher.whenStored(0, store.journal!.last(0));
  await publisher.stop(0);
  await expect(waiting).rejects.toThrow(/stopping/);
  expect(store.journal!.backlog().rows).toBe(1);
  replica.failWith = undefined;
  const next = new StatePublisher({
    store,
    journal: store.journal!,
    replica,
    region: REGION,
    writer: WRITER,
    log: silentLog,
    now: Date.now,
  });
  next.start();
  await next.flushed(0);
  expect(replayed(replica).rows).toEqual([1]);
  await next.stop();
});

async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
