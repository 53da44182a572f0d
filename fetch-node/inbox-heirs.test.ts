/**
 * InboxHeirs over the in-process bus and cluster state: the inbox of a fetch node that is gone is pulled by
 * its heir, and only by it; the heir lets go when the node is back, and removes the inbox once the node has
 * been gone long enough and nothing waits in it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryBus, MemoryClusterState } from "../adapters/memory/index.ts";
import type { NodeRecord } from "../core/cluster/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { InboxHeirs } from "./inbox-heirs.ts";

const REGION = "us";

function fetcher(id: string, heartbeatAt: number, status: NodeRecord["status"] = "active"): NodeRecord {
  return {
    id,
    role: "fetcher",
    region: REGION,
    runtime: "bun",
    status,
    grpcAddress: "",
    httpAddress: "",
    startedAt: 0,
    heartbeatAt,
    partitions: [],
    counters: {},
    gauges: {},
  };
}

function task(taskId: string): FetchTask {
  return {
    taskId,
    kind: "page",
    url: `http://h.test/${taskId}`,
    host: "h.test",
    partition: 0,
    depth: 0,
    redirectHops: 0,
    hostGapMs: 1_000,
    issuedAt: 0,
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function bed(ids: string[]) {
  const bus = new MemoryBus({ onError: () => {} });
  const state = new MemoryClusterState();
  await bus.ensureRegion(REGION, 4);
  const taken: Record<string, string[]> = {};
  const heirs = new Map<string, InboxHeirs>();
  let clock = 1_000_000;
  for (const id of ids) {
    taken[id] = [];
    const h = new InboxHeirs({
      bus,
      state,
      region: REGION,
      nodeId: id,
      concurrency: 2,
      handler: async (d) => {
        taken[id]!.push(d.data.taskId);
        await d.ack();
      },
      removeAfterMs: 60_000,
      everyMs: 60_000, // looks only when the test asks
      now: () => clock,
      log: silentLog,
    });
    heirs.set(id, h);
  }
  cleanups.push(async () => {
    for (const h of heirs.values()) await h.stop();
    await bus.close();
  });
  return {
    bus,
    state,
    taken,
    heirs,
    tick: (ms: number) => (clock += ms),
    lookAll: () => Promise.all([...heirs.values()].map((h) => h.look())),
  };
}

describe("inbox heirs", () => {
  test("inbox heirs - the tasks waiting for a dead fetch node go to exactly one live node, which lets go when the node is back", async () => {
    const { bus, state, taken, heirs, lookAll } = await bed(["f-a", "f-b", "f-c"]);
    const now = Date.now();
    for (const id of ["f-a", "f-b", "f-c"]) await state.putNode(fetcher(id, now));
    // f-dead stopped beating 11 s ago (killed): the tasks frontier nodes had sent it wait in its inbox.
    await state.putNode(fetcher("f-dead", now - 11_000));
    for (let i = 0; i < 6; i++) await bus.publishTask(REGION, task(`t${i}`), { to: "f-dead" });
    await lookAll();
    const heirIds = [...heirs].filter(([, h]) => h.adoptedInboxes.includes("f-dead")).map(([id]) => id);
    expect(heirIds).toHaveLength(1);
    const heir = heirIds[0]!;
    await waitFor(() => taken[heir]!.length === 6);
    expect(taken[heir]!.sort()).toEqual(["t0", "t1", "t2", "t3", "t4", "t5"]);
    expect(Object.entries(taken).filter(([id, got]) => id !== heir && got.length > 0)).toEqual([]);

    // f-dead is back (thawed, or restarted with its id): its heir stops pulling its inbox.
    await state.putNode(fetcher("f-dead", Date.now()));
    await lookAll();
    expect(heirs.get(heir)!.adoptedInboxes).toEqual([]);
    await bus.publishTask(REGION, task("for-f-dead-again"), { to: "f-dead" });
    await new Promise((r) => setTimeout(r, 50));
    expect(Object.values(taken).flat()).not.toContain("for-f-dead-again");
  });

  test("inbox heirs - a draining node's inbox is taken over, and so is the inbox of a node whose record is gone", async () => {
    const { bus, state, taken, heirs, lookAll } = await bed(["f-a"]);
    await state.putNode(fetcher("f-a", Date.now()));
    await state.putNode(fetcher("f-stopping", Date.now(), "draining"));
    await bus.publishTask(REGION, task("left-behind"), { to: "f-stopping" });
    await bus.publishTask(REGION, task("never-started"), { to: "f-no-record" });
    await lookAll();
    expect(heirs.get("f-a")!.adoptedInboxes).toEqual(["f-no-record", "f-stopping"]);
    await waitFor(() => taken["f-a"]!.length === 2);
  });

  test("inbox heirs - an inbox is removed once its node has been gone long enough and nothing waits in it, not before", async () => {
    const { bus, state, heirs, tick, lookAll } = await bed(["f-a"]);
    await state.putNode(fetcher("f-a", Date.now()));
    await bus.publishTask(REGION, task("last"), { to: "f-gone" });
    await lookAll();
    await waitFor(() => bus.depth("us/inbox-f-gone") === 0);
    tick(59_000);
    await lookAll();
    expect((await bus.taskInboxes(REGION)).map((i) => i.node)).toEqual(["f-gone"]);
    tick(2_000);
    await lookAll();
    expect(await bus.taskInboxes(REGION)).toEqual([]);
    expect(heirs.get("f-a")!.adoptedInboxes).toEqual([]);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
