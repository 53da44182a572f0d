import { describe, expect, test } from "bun:test";
import { MemoryClusterState } from "../adapters/memory/index.ts";
import type { RingRecord } from "../core/cluster/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { startCoordinatorLoop } from "./loop.ts";
import { Membership } from "./membership.ts";
import { Rebalancer } from "./rebalancer.ts";
import { nodeRecord, P } from "./test-support.ts";

/** A heartbeat turn no test waits for: every tick after the first is one a membership change asked for. */
const NEVER = 3_600_000;

function setup() {
  const state = new MemoryClusterState();
  const now = () => Date.now();
  const membership = new Membership({ state, now, deathTimeoutMs: 10_000 });
  const rebalancer = new Rebalancer({
    state,
    membership,
    nodeId: "c1",
    leaseTtlMs: 6_000,
    partitions: P,
    vnodes: 64,
    regions: ["us"],
    now,
    log: silentLog,
  });
  let ticks = 0;
  const rings: RingRecord[] = [];
  const unwatch = state.watchRing((ring) => rings.push(ring));
  const loop = startCoordinatorLoop({
    rebalancer: { tick: () => (ticks++, rebalancer.tick()) },
    membership,
    intervalMs: NEVER,
    settleMs: 5,
    afterTick: () => {},
    sample: async () => {},
    onError: (error) => {
      throw error;
    },
  });
  const join = (id: string) => state.putNode(nodeRecord({ id, heartbeatAt: Date.now(), grpcAddress: `127.0.0.1:1${id.length}` }));
  const ringWhere = async (what: string, cond: (ring: RingRecord) => boolean): Promise<RingRecord> => {
    const deadline = performance.now() + 5_000;
    for (;;) {
      const found = rings.find(cond);
      if (found) return found;
      if (performance.now() > deadline) throw new Error(`no ring ${what}; rings: ${JSON.stringify(rings.map(owners))}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  return {
    state,
    membership,
    rings,
    ticks: () => ticks,
    join,
    ringWhere,
    close: async () => {
      unwatch();
      await loop.stop();
    },
  };
}

const owners = (ring: RingRecord) => ring.regions["us"]!.owners;
const previous = (ring: RingRecord) => ring.regions["us"]!.previous;

describe("coordinator loop", () => {
  test("coordinator loop - a frontier node joining gets every partition at once, not at the next heartbeat turn", async () => {
    const t = setup();
    try {
      await t.ringWhere("at the start", (r) => r.epoch === 1);
      expect(owners(t.rings[0]!).every((o) => o === "")).toBe(true);
      await t.join("a");
      const ring = await t.ringWhere("naming a", (r) => owners(r).includes("a"));
      expect(ring.epoch).toBe(2);
      expect(owners(ring).every((o) => o === "a")).toBe(true);
    } finally {
      await t.close();
    }
  });

  test("coordinator loop - a burst of joins is one tick and one ring write", async () => {
    const t = setup();
    try {
      await t.ringWhere("at the start", (r) => r.epoch === 1);
      const before = t.ticks();
      await t.join("a");
      await t.join("b");
      await t.join("c");
      const ring = await t.ringWhere("naming a, b and c", (r) => new Set(owners(r)).size === 3);
      expect(new Set(owners(ring))).toEqual(new Set(["a", "b", "c"]));
      expect(t.rings.map((r) => r.epoch)).toEqual([1, 2]);
      expect(t.ticks()).toBe(before + 1);
    } finally {
      await t.close();
    }
  });

  test("coordinator loop - heartbeats of joined nodes ask for no tick", async () => {
    const t = setup();
    try {
      await t.join("a");
      await t.ringWhere("naming a", (r) => owners(r).includes("a"));
      const before = t.ticks();
      for (let beat = 0; beat < 5; beat++) await t.join("a");
      // Changes are heard in order: once b's join has been rebalanced, a's beats before it were heard too.
      await t.join("b");
      await t.ringWhere("naming b", (r) => owners(r).includes("b"));
      expect(t.ticks()).toBe(before + 1);
    } finally {
      await t.close();
    }
  });

  test("coordinator loop - a node leaving cleanly gives its partitions away at once; one drained hands them over", async () => {
    const t = setup();
    try {
      await t.join("a");
      await t.join("b");
      await t.join("c");
      await t.ringWhere("naming a, b and c", (r) => new Set(owners(r)).size === 3);
      // A clean leave deletes the record: nothing to hand over from a node that is gone.
      await t.state.deleteNode("c");
      const left = await t.ringWhere("without c", (r) => !owners(r).includes("c"));
      expect(previous(left).every((p) => p === "")).toBe(true);
      // A drain keeps the node reachable: its partitions move with a handoff from it.
      const share = owners(left).flatMap((o, p) => (o === "b" ? [p] : []));
      await t.membership.drain("b");
      const drained = await t.ringWhere("without b", (r) => !owners(r).includes("b"));
      expect(share.every((p) => previous(drained)[p] === "b" && owners(drained)[p] === "a")).toBe(true);
    } finally {
      await t.close();
    }
  });
});
