import { describe, expect, test } from "bun:test";
import { MemoryClusterState } from "../adapters/memory/index.ts";
import { FailedPreconditionError, NotFoundError } from "../core/errors/index.ts";
import { classifyNode, Membership } from "./membership.ts";
import { nodeRecord, until } from "./test-support.ts";

const DEATH = 10_000;

describe("membership", () => {
  test("membership - a fresh active heartbeat is live, an old one is dead whatever the record says", () => {
    const now = 100_000;
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: now - 9_999 }), now, DEATH)).toBe("live");
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: now - DEATH }), now, DEATH)).toBe("live");
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: now - DEATH - 1 }), now, DEATH)).toBe("dead");
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: now - DEATH - 1, status: "draining" }), now, DEATH)).toBe("dead");
  });

  test("membership - a draining record with a fresh heartbeat is draining, a left one is left", () => {
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: 0, status: "draining" }), 1, DEATH)).toBe("draining");
    expect(classifyNode(nodeRecord({ id: "a", heartbeatAt: 0, status: "left" }), 1, DEATH)).toBe("left");
  });

  test("membership - the view lists live frontier nodes by region and counts draining ones as reachable", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 50_000 };
    await state.putNode(nodeRecord({ id: "f2", region: "us", heartbeatAt: 49_000 }));
    await state.putNode(nodeRecord({ id: "f1", region: "us", heartbeatAt: 49_000 }));
    await state.putNode(nodeRecord({ id: "f3", region: "eu", heartbeatAt: 49_000 }));
    await state.putNode(nodeRecord({ id: "f4", region: "eu", heartbeatAt: 49_000, status: "draining" }));
    await state.putNode(nodeRecord({ id: "f5", region: "eu", heartbeatAt: 10_000 }));
    await state.putNode(nodeRecord({ id: "x1", role: "fetcher", region: "us", heartbeatAt: 49_000 }));
    const view = await new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH }).view();
    expect(view.members.map((m) => `${m.record.id}:${m.state}`)).toEqual([
      "f1:live",
      "f2:live",
      "f3:live",
      "f4:draining",
      "f5:dead",
      "x1:live",
    ]);
    expect(view.liveFrontiers).toEqual({ us: ["f1", "f2"], eu: ["f3"] });
    expect([...view.reachableFrontiers].sort()).toEqual(["f1", "f2", "f3", "f4"]);
    expect(view.members.find((m) => m.record.id === "f5")!.heartbeatAgeMs).toBe(40_000);
  });

  test("membership - drain writes the record and stays draining when the node's next heartbeat says active", async () => {
    const state = new MemoryClusterState();
    const membership = new Membership({ state, now: () => 1_000, deathTimeoutMs: DEATH });
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 900 }));
    const drained = await membership.drain("f1");
    expect(drained.state).toBe("draining");
    expect((await state.listNodes())[0]!.status).toBe("draining");
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 990 }));
    expect((await membership.view()).members[0]!.state).toBe("draining");
    expect(await membership.drain("f1")).toMatchObject({ state: "draining" });
  });

  test("membership - a drained node that leaves and comes back is live again", async () => {
    const state = new MemoryClusterState();
    const membership = new Membership({ state, now: () => 1_000, deathTimeoutMs: DEATH });
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 900 }));
    await membership.drain("f1");
    await state.deleteNode("f1");
    await membership.view();
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 990 }));
    expect((await membership.view()).members[0]!.state).toBe("live");
  });

  test("membership - drain refuses unknown nodes, coordinators and dead nodes", async () => {
    const state = new MemoryClusterState();
    const membership = new Membership({ state, now: () => 100_000, deathTimeoutMs: DEATH });
    await state.putNode(nodeRecord({ id: "c1", role: "coordinator", heartbeatAt: 99_000 }));
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 1_000 }));
    await expect(membership.drain("nope")).rejects.toBeInstanceOf(NotFoundError);
    await expect(membership.drain("c1")).rejects.toBeInstanceOf(FailedPreconditionError);
    await expect(membership.drain("f1")).rejects.toBeInstanceOf(FailedPreconditionError);
  });

  test("membership - a dead node is listed with no partitions, whatever its last record claimed", async () => {
    const state = new MemoryClusterState();
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 99_000, partitions: [0, 1] }));
    await state.putNode(nodeRecord({ id: "f2", heartbeatAt: 1_000, partitions: [2, 3] }));
    const view = await new Membership({ state, now: () => 100_000, deathTimeoutMs: DEATH }).view();
    expect(view.members.map((m) => [m.record.id, m.state, m.record.partitions])).toEqual([
      ["f1", "live", [0, 1]],
      ["f2", "dead", []],
    ]);
  });

  test("membership - silence the coordinator could not see does not count: after its start, and after a failed read", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 100_000 };
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 50_000 }));
    // Started at 100 s: f1's silence before that is not judged until 110 s.
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH, observedSince: clock.now });
    expect((await membership.view()).members[0]!.state).toBe("live");
    clock.now = 110_001;
    expect((await membership.view()).members[0]!.state).toBe("dead");

    // The state cannot be read for a while (NATS down): f2's beats fail meanwhile too.
    await state.putNode(nodeRecord({ id: "f2", heartbeatAt: clock.now }));
    const listNodes = state.listNodes.bind(state);
    state.listNodes = () => Promise.reject(new Error("nats down"));
    clock.now += 30_000;
    await expect(membership.view()).rejects.toThrow("nats down");
    state.listNodes = listNodes;
    const back = clock.now;
    expect((await membership.view()).members.find((m) => m.record.id === "f2")!.state).toBe("live");
    clock.now = back + DEATH;
    expect((await membership.view()).members.find((m) => m.record.id === "f2")!.state).toBe("live");
    clock.now = back + DEATH + 1;
    expect((await membership.view()).members.find((m) => m.record.id === "f2")!.state).toBe("dead");
  });

  test("membership - silence while the coordinator's own connection was down does not count, even with no failed read", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 100_000 };
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH, observedSince: clock.now });
    expect((await membership.view()).members[0]!.state).toBe("live");
    // The connection drops and comes back 5 s later; the coordinator read nothing meanwhile (its loop was
    // waiting on something else), and f1's heartbeats failed.
    membership.blind();
    clock.now += 5_000;
    const back = clock.now;
    clock.now = back + 6_000; // 11 s after f1's last beat, 6 s after the connection came back
    expect((await membership.view()).members[0]!.state).toBe("live");
    clock.now = back + 6_000 + DEATH + 1;
    expect((await membership.view()).members[0]!.state).toBe("dead");
  });

  test("membership - a read under way when the connection dropped counts as seen only from its end", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 100_000 };
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now - DEATH + 1 }));
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH, observedSince: 0 });
    const listNodes = state.listNodes.bind(state);
    state.listNodes = async () => {
      // The drop and the reconnect happen while this read waits for its answer.
      membership.blind();
      clock.now += 3_000;
      return listNodes();
    };
    // Judged at the read's start, f1's silence (just under the timeout) does not kill it yet.
    expect((await membership.view()).members[0]!.state).toBe("live");
    state.listNodes = listNodes;
    const end = clock.now;
    clock.now = end + DEATH;
    expect((await membership.view()).members[0]!.state).toBe("live");
    clock.now = end + DEATH + 1;
    expect((await membership.view()).members[0]!.state).toBe("dead");
  });

  test("membership - watch hears joins, leaves and drains as changes, not the heartbeats of nodes it has heard", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 1_000 };
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH });
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: 900 }));
    await state.putNode(nodeRecord({ id: "x1", role: "fetcher", heartbeatAt: 900 }));
    const heard: number[] = [];
    const stop = membership.watch(() => heard.push(membership.changes));
    try {
      // Every record present is new to this watch.
      await until(() => membership.changes >= 2);
      expect(membership.changes).toBe(2);
      clock.now += 500;
      for (let beat = 0; beat < 3; beat++) await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now + beat }));
      // Changes arrive in order: once f2's join is heard, so were f1's beats before it, and they added nothing.
      await state.putNode(nodeRecord({ id: "f2", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 3);
      expect(membership.changes).toBe(3);
      await state.deleteNode("x1");
      await until(() => membership.changes >= 4);
      expect(membership.changes).toBe(4);
      await membership.drain("f2");
      expect(membership.changes).toBe(5);
      expect(heard).toEqual([1, 2, 3, 4, 5]);
    } finally {
      stop();
    }
    await state.putNode(nodeRecord({ id: "f3", heartbeatAt: clock.now }));
    await membership.drain("f3");
    expect(heard).toEqual([1, 2, 3, 4, 5]);
  });

  test("membership - a node heard again after more than the death timeout without a write is a change", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 1_000 };
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: DEATH });
    const stop = membership.watch(() => {});
    try {
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 1);
      expect(membership.changes).toBe(1);
      clock.now += DEATH;
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
      clock.now += DEATH + 1;
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 2);
      expect(membership.changes).toBe(2);
      // Its next beat, on time, is not.
      clock.now += 2_000;
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
      await state.putNode(nodeRecord({ id: "f2", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 3);
      expect(membership.changes).toBe(3);
    } finally {
      stop();
    }
  });
});
