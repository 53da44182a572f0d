import { describe, expect, test } from "bun:test";
import { MemoryClusterState } from "../adapters/memory/index.ts";
import { completeHandoff, type RingRecord } from "../core/cluster/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { Membership } from "./membership.ts";
import { Rebalancer, type RebalancerOptions } from "./rebalancer.ts";
import { nodeRecord, P } from "./test-support.ts";

const DEATH = 10_000;
const TTL = 6_000;

function setup(state = new MemoryClusterState()) {
  const clock = { now: 1_000_000 };
  const make = (id: string, extra: Partial<RebalancerOptions> = {}) => {
    const now = () => clock.now;
    const membership = new Membership({ state, now, deathTimeoutMs: DEATH });
    return new Rebalancer({
      state,
      membership,
      nodeId: id,
      leaseTtlMs: TTL,
      partitions: P,
      vnodes: 64,
      regions: ["us", "eu"],
      now,
      log: silentLog,
      ...extra,
    });
  };
  const beat = (...ids: string[]) =>
    Promise.all(ids.map((id) => state.putNode(nodeRecord({ id, heartbeatAt: clock.now, grpcAddress: `127.0.0.1:1${id.length}` }))));
  return { state, clock, make, beat };
}

const owners = (ring: RingRecord, region = "us") => ring.regions[region]!.owners;
const previous = (ring: RingRecord, region = "us") => ring.regions[region]!.previous;

describe("rebalancer", () => {
  test("rebalancer - two frontier nodes joining get every partition and nothing to hand over", async () => {
    const { state, make, beat } = setup();
    await beat("a", "b");
    const outcome = await make("c1").tick();
    expect(outcome).toMatchObject({ leader: true, wrote: true, epoch: 1 });
    const { ring } = (await state.getRing())!;
    expect(ring.partitions).toBe(P);
    expect(new Set(owners(ring))).toEqual(new Set(["a", "b"]));
    expect(previous(ring).every((p) => p === "")).toBe(true);
    // A configured region without frontier nodes still has an entry, with no owners.
    expect(owners(ring, "eu").every((o) => o === "")).toBe(true);
  });

  test("rebalancer - a tick with unchanged membership writes nothing", async () => {
    const { state, make, beat } = setup();
    await beat("a", "b");
    const r = make("c1");
    await r.tick();
    const before = (await state.getRing())!.revision;
    expect(await r.tick()).toMatchObject({ leader: true, wrote: false });
    expect((await state.getRing())!.revision).toBe(before);
  });

  test("rebalancer - a third node joining takes about a third, each moved partition naming its giver", async () => {
    const { state, clock, make, beat } = setup();
    await beat("a", "b");
    const r = make("c1");
    await r.tick();
    const before = (await state.getRing())!.ring;
    clock.now += 2_000;
    await beat("a", "b", "c");
    expect(await r.tick()).toMatchObject({ wrote: true, epoch: 2 });
    const after = (await state.getRing())!.ring;
    const moved = owners(after).flatMap((o, p) => (o !== owners(before)[p] ? [p] : []));
    expect(moved.length).toBeGreaterThan(P / 3 - 12);
    expect(moved.length).toBeLessThan(P / 3 + 12);
    for (const p of moved) {
      expect(owners(after)[p]).toBe("c");
      expect(previous(after)[p]).toBe(owners(before)[p]!);
    }
    for (let p = 0; p < P; p++) if (!moved.includes(p)) expect(previous(after)[p]).toBe("");
  });

  test("rebalancer - a dead node's partitions move at once with nothing to hand over", async () => {
    const { state, clock, make, beat } = setup();
    await beat("a", "b", "c");
    const r = make("c1");
    await r.tick();
    const before = (await state.getRing())!.ring;
    clock.now += DEATH + 1;
    await beat("a", "b");
    expect(await r.tick()).toMatchObject({ wrote: true });
    const after = (await state.getRing())!.ring;
    expect(owners(after).includes("c")).toBe(false);
    owners(before).forEach((o, p) => {
      if (o === "c") expect(previous(after)[p]).toBe("");
      else expect(owners(after)[p]).toBe(o);
    });
  });

  test("rebalancer - while the lease cannot be written (the bucket without a leader) the nodes' silence does not count: nobody is declared dead after it", async () => {
    // Seen with one NATS server of three killed: the lease writes failed ("no responders") for 5 s while the
    // records could still be read, the nodes' beats failed for 10 s, and both frontier nodes were declared
    // dead in turn, alive: their partitions moved without a handoff.
    const { state, clock, make, beat } = setup();
    await beat("a", "b");
    const r = make("c1");
    await r.tick();
    const before = (await state.getRing())!;
    const acquireLease = state.acquireLease.bind(state);
    state.acquireLease = () => Promise.reject(new Error("no responders: '$KV.crawl-cluster.lease.coordinator'"));
    for (let s = 0; s < 5; s++) {
      clock.now += 1_000;
      await expect(r.tick()).rejects.toThrow("no responders");
    }
    state.acquireLease = acquireLease;
    const back = clock.now;
    expect(await r.tick()).toMatchObject({ leader: true, wrote: false });
    // 11 s after the nodes' last beats, 6 s after the lease could be written again: both still live.
    clock.now = back + 6_000;
    expect(await r.tick()).toMatchObject({ leader: true, wrote: false });
    expect((await state.getRing())!.revision).toBe(before.revision);
    // Silent for a whole death timeout since then: now b is dead (a beat again).
    clock.now = back + DEATH + 1;
    await beat("a");
    expect(await r.tick()).toMatchObject({ wrote: true });
    expect(new Set(owners((await state.getRing())!.ring))).toEqual(new Set(["a"]));
  });

  test("rebalancer - a drained node keeps handing over: its partitions move with it as previous", async () => {
    const { state, make, beat } = setup();
    await beat("a", "b", "c");
    const r = make("c1");
    await r.tick();
    const before = (await state.getRing())!.ring;
    await state.putNode({ ...nodeRecord({ id: "c", heartbeatAt: 1_000_000 }), status: "draining" });
    await r.tick();
    const after = (await state.getRing())!.ring;
    owners(before).forEach((o, p) => {
      if (o === "c") {
        expect(owners(after)[p]).not.toBe("c");
        expect(previous(after)[p]).toBe("c");
      }
    });
  });

  test("rebalancer - a second coordinator writes nothing while the first holds the lease, and takes over after it expires", async () => {
    const { state, clock, make, beat } = setup();
    const first = make("c1");
    const second = make("c2");
    await beat("a", "b");
    expect(await first.tick()).toMatchObject({ leader: true, wrote: true });
    expect(await second.tick()).toEqual({ leader: false, wrote: false });
    expect(second.isLeader).toBe(false);
    expect(second.hasRing).toBe(true);

    // Membership changes while the first still holds the lease: only the first writes.
    clock.now += 2_000;
    await beat("a", "b", "c");
    const revision = (await state.getRing())!.revision;
    expect(await second.tick()).toEqual({ leader: false, wrote: false });
    expect((await state.getRing())!.revision).toBe(revision);
    expect(await first.tick()).toMatchObject({ leader: true, wrote: true });

    // The first stops renewing; after the TTL the second takes over and rebalances (c has died meanwhile).
    clock.now += DEATH + 1;
    await beat("a", "b");
    expect(await second.tick()).toMatchObject({ leader: true, wrote: true });
    expect(owners((await state.getRing())!.ring).includes("c")).toBe(false);
    expect(await first.tick()).toEqual({ leader: false, wrote: false });
  });

  test("rebalancer - after the leader dies the warm standby takes the lease, not the leader's own restart", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 1_000_000 };
    const now = () => clock.now;
    const coordinator = (id: string, startedAt: number) =>
      new Rebalancer({
        state,
        membership: new Membership({ state, now, deathTimeoutMs: DEATH }),
        nodeId: id,
        incarnation: `${id}-${startedAt}`,
        startedAt,
        leaseTtlMs: TTL,
        partitions: P,
        vnodes: 64,
        regions: ["us"],
        now,
        log: silentLog,
      });
    const record = (id: string, startedAt: number) =>
      state.putNode(nodeRecord({ id, role: "coordinator", startedAt, heartbeatAt: clock.now }));
    await state.putNode(nodeRecord({ id: "a", heartbeatAt: clock.now }));
    const leader = coordinator("c1", clock.now - 60_000);
    const standby = coordinator("c2", clock.now - 50_000);
    await record("c1", clock.now - 60_000);
    await record("c2", clock.now - 50_000);
    expect(await leader.tick()).toMatchObject({ leader: true });
    expect(await standby.tick()).toMatchObject({ leader: false });

    // c1 is killed; the supervisor starts it again at once, under the same id.
    clock.now += 1_000;
    const restarted = coordinator("c1", clock.now);
    await record("c1", clock.now);
    await record("c2", clock.now - 50_000);
    expect(await restarted.tick()).toMatchObject({ leader: false }); // not its predecessor's lease to renew
    clock.now += TTL;
    await record("c1", clock.now - TTL);
    expect(await restarted.tick()).toMatchObject({ leader: false }); // the lease expired, but c2 is older: left to it
    expect(await standby.tick()).toMatchObject({ leader: true });
    clock.now += TTL / 2;
    await record("c2", clock.now - 50_000);
    expect(await standby.tick()).toMatchObject({ leader: true });
    clock.now += TTL / 2;
    expect(await restarted.tick()).toMatchObject({ leader: false }); // warm now, but c2 renews its lease
  });

  test("rebalancer - a coordinator alone takes the lease of its dead predecessor once it expires", async () => {
    const state = new MemoryClusterState();
    const clock = { now: 1_000_000 };
    const now = () => clock.now;
    const coordinator = (startedAt: number) =>
      new Rebalancer({
        state,
        membership: new Membership({ state, now, deathTimeoutMs: DEATH }),
        nodeId: "c1",
        incarnation: String(startedAt),
        startedAt,
        leaseTtlMs: TTL,
        partitions: P,
        vnodes: 64,
        regions: ["us"],
        now,
        log: silentLog,
      });
    expect(await coordinator(clock.now).tick()).toMatchObject({ leader: true });
    clock.now += 1_000;
    const restarted = coordinator(clock.now);
    expect(await restarted.tick()).toMatchObject({ leader: false });
    clock.now += TTL; // expired, and no older coordinator to leave it to
    expect(await restarted.tick()).toMatchObject({ leader: true });
  });

  test("rebalancer - taking and losing the lease is told once each, so the coordinator writes its record then", async () => {
    const { state, clock, make, beat } = setup();
    const told: string[] = [];
    const first = make("c1", { onLeaderChange: (leader) => told.push(`c1 ${leader}`) });
    const second = make("c2", { onLeaderChange: (leader) => told.push(`c2 ${leader}`) });
    await beat("a");
    await first.tick();
    await second.tick();
    await first.tick();
    expect(told).toEqual(["c1 true"]);
    // Another holder takes the expired lease: the first is told it lost it at its next tick.
    clock.now += TTL + 1;
    await state.acquireLease("coordinator", "c3", TTL, clock.now);
    await first.tick();
    expect(told).toEqual(["c1 true", "c1 false"]);
  });

  test("rebalancer - releasing the lease lets a standby take over before the TTL", async () => {
    const { clock, make, beat } = setup();
    const first = make("c1");
    const second = make("c2");
    await beat("a");
    await first.tick();
    clock.now += 1;
    await first.release();
    expect(await second.tick()).toMatchObject({ leader: true });
  });

  test("rebalancer - a conflicting ring write is re-read and the tick still lands", async () => {
    class RacyState extends MemoryClusterState {
      raced = false;
      override async casRing(ring: RingRecord, revision: number): Promise<number | undefined> {
        if (!this.raced && revision !== 0) {
          // A frontier node completes a handoff between the coordinator's read and its write.
          this.raced = true;
          const cur = (await this.getRing())!;
          const p = cur.ring.regions.us!.previous.findIndex((x) => x !== "");
          await super.casRing(completeHandoff(cur.ring, "us", p), cur.revision);
        }
        return super.casRing(ring, revision);
      }
    }
    const { state, clock, make, beat } = setup(new RacyState());
    const r = make("c1");
    await beat("a", "b");
    await r.tick();
    clock.now += 2_000;
    await beat("a", "b", "c");
    await r.tick(); // c joins: handoffs pending, no race yet (the race needs a pending handoff)
    clock.now += 2_000;
    await beat("a", "b", "c", "d");
    expect(await r.tick()).toMatchObject({ leader: true, wrote: true });
    expect((state as RacyState).raced).toBe(true);
    expect(new Set(owners((await state.getRing())!.ring))).toEqual(new Set(["a", "b", "c", "d"]));
  });

  test("rebalancer - refuses to rewrite a ring with another partition count", async () => {
    const { state, make, beat } = setup();
    await beat("a");
    await state.casRing({ epoch: 1, partitions: P * 2, vnodes: 64, regions: {} }, 0);
    await expect(make("c1").tick()).rejects.toThrow(/fixed for the cluster's life/);
  });

  test("rebalancer - the first ring waits for the expected frontier nodes, so nodes started together hand nothing over", async () => {
    const { state, clock, make, beat } = setup();
    const r = make("c1", { expectFrontiers: 2, startedAt: clock.now });
    await beat("a");
    expect(await r.tick()).toMatchObject({ leader: true, wrote: false });
    expect(await state.getRing()).toBeUndefined();
    expect(r.hasRing).toBe(false);
    clock.now += 300;
    await beat("a", "b");
    expect(await r.tick()).toMatchObject({ wrote: true, epoch: 1 });
    const { ring } = (await state.getRing())!;
    expect(new Set(owners(ring))).toEqual(new Set(["a", "b"]));
    expect(previous(ring).every((p) => p === "")).toBe(true);
  });

  test("rebalancer - an expected frontier node that never comes holds the first ring back for the wait only", async () => {
    const { state, clock, make, beat } = setup();
    const r = make("c1", { expectFrontiers: 3, startedAt: clock.now, firstRingWaitMs: 5_000 });
    await beat("a", "b");
    expect(await r.tick()).toMatchObject({ wrote: false });
    clock.now += 4_999;
    await beat("a", "b");
    expect(await r.tick()).toMatchObject({ wrote: false });
    clock.now += 1;
    await beat("a", "b");
    expect(await r.tick()).toMatchObject({ wrote: true });
    expect(new Set(owners((await state.getRing())!.ring))).toEqual(new Set(["a", "b"]));
  });

  test("rebalancer - with a ring stored, a coordinator started again does not wait for the expected frontier nodes", async () => {
    const { state, clock, make, beat } = setup();
    await beat("a", "b");
    await make("c1").tick();
    clock.now += DEATH + 1;
    await beat("a");
    const again = make("c2", { expectFrontiers: 2, startedAt: clock.now });
    expect(await again.tick()).toMatchObject({ leader: true, wrote: true, epoch: 2 });
    expect(new Set(owners((await state.getRing())!.ring))).toEqual(new Set(["a"]));
  });

  test("rebalancer - a leader paused mid-tick, whose lease a standby took meanwhile, writes no ring from what it read before", async () => {
    // The pause falls between the leader's membership read (both nodes live) and its ring read: meanwhile
    // node b died, the lease ran out and c2 took it and wrote a ring without b. Thawed, the old leader reads
    // c2's ring; a compare-and-set on it would succeed and give b its partitions back.
    let pauseOnce: (() => Promise<void>) | undefined;
    class PausingState extends MemoryClusterState {
      override async getRing() {
        const pause = pauseOnce;
        pauseOnce = undefined;
        await pause?.();
        return super.getRing();
      }
    }
    const { state, clock, make, beat } = setup(new PausingState());
    const mono = { now: 0 };
    await beat("a", "b");
    const c1 = make("c1", { monotonicNow: () => mono.now });
    const c2 = make("c2");
    expect(await c1.tick()).toMatchObject({ leader: true, wrote: true, epoch: 1 });
    expect(await c2.tick()).toMatchObject({ leader: false });
    pauseOnce = async () => {
      clock.now += 20_000;
      mono.now += 20_000;
      await beat("a"); // b is silent: dead by now
      expect(await c2.tick()).toMatchObject({ leader: true, wrote: true, epoch: 2 });
    };
    expect(await c1.tick()).toMatchObject({ wrote: false });
    const { ring } = (await state.getRing())!;
    expect(ring.epoch).toBe(2);
    expect(new Set(owners(ring))).toEqual(new Set(["a"]));
    // Its next tick finds the lease taken: it stands by.
    expect(await c1.tick()).toMatchObject({ leader: false, wrote: false });
    expect((await state.getRing())!.ring.epoch).toBe(2);
  });

  test("rebalancer - two coordinators both granted the lease (a double grant): once the newer term wrote the ring, the older writes nothing and stands by", async () => {
    // nats-server 2.9.10 can accept two compare-and-sets of the 3-copy lease key from one revision: both
    // coordinators hear "granted". Here every ask is granted, each with a higher revision, as a bucket's
    // sequence counts writes; c2's tick runs in the middle of c1's, between its lease and its ring read.
    let between: (() => Promise<void>) | undefined;
    let revision = 0;
    class DoubleGrant extends MemoryClusterState {
      override async acquireLease(): Promise<number> {
        return ++revision;
      }
      override async getRing() {
        const run = between;
        between = undefined;
        await run?.();
        return super.getRing();
      }
    }
    const { state, make, beat } = setup(new DoubleGrant());
    await beat("a", "b");
    const c1 = make("c1");
    const c2 = make("c2");
    expect(await c1.tick()).toMatchObject({ leader: true, wrote: true, epoch: 1 }); // term 1
    between = async () => {
      // c2's first tick (term 3): the same nodes, so the same owners, but its term goes into the ring.
      expect(await c2.tick()).toMatchObject({ leader: true, wrote: true, epoch: 1 });
    };
    // c1 renews (granted: term still 1) and reads c2's ring: a newer term. It writes nothing.
    expect(await c1.tick()).toEqual({ leader: false, wrote: false });
    const stored = (await state.getRing())!;
    expect(stored.ring.leaderTerm).toBe(3);
    expect(c1.isLeader).toBe(false);
    // c2 goes on leading; its ticks write nothing new.
    expect(await c2.tick()).toMatchObject({ leader: true, wrote: false });
    expect((await state.getRing())!.revision).toBe(stored.revision);
  });
});

describe("rebalancer and the politeness key", () => {
  test("rebalancer - writes a non-default politeness key into the ring, and refuses a stored ring with another key", async () => {
    const { state, make, beat } = setup();
    await beat("a", "b");
    await make("c1", { politenessKey: "domain" }).tick();
    expect((await state.getRing())!.ring.politenessKey).toBe("domain");
    // A coordinator started with another key does not re-place the fleet: it stops with the reason.
    await expect(make("c1", { politenessKey: "host" }).tick()).rejects.toThrow(
      "--politeness-key host differs from the stored ring (domain); the key places every host",
    );
    expect((await state.getRing())!.ring.politenessKey).toBe("domain");
  });

  test("rebalancer - with the host key the ring carries no key (rings read as before)", async () => {
    const { state, make, beat } = setup();
    await beat("a");
    await make("c1", { politenessKey: "host" }).tick();
    expect((await state.getRing())!.ring.politenessKey).toBeUndefined();
  });
});
