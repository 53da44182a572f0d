/**
 * The ClusterState contract (core/ports/cluster.ts), one suite run against every implementation: the
 * in-process MemoryClusterState and NatsKvClusterState on a real nats-server. Each test gets two handles
 * on one fresh store (two connections on a fresh bucket for NATS, the same object in memory), so the
 * compare-and-set races are between writers that do not share memory. Waits poll for a condition.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { NodeRecord, RingRecord } from "../../core/cluster/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";
import type { JobRecord } from "../../core/jobs/index.ts";
import { MemoryClusterState } from "../../adapters/memory/index.ts";
import { connectNats, NatsKvClusterState, type NatsConnection } from "../../adapters/nats/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

interface StatePair {
  a: ClusterState;
  /** A second handle on the same store (another node); may be `a` itself. */
  b: ClusterState;
}

interface StateFixture {
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  fresh(): Promise<StatePair>;
  cleanup(): Promise<void>;
}

function clusterStateContract(name: string, fixture: StateFixture): void {
  describe(`${name} - ClusterState contract`, () => {
    let a: ClusterState;
    let b: ClusterState;

    beforeAll(async () => fixture.setup?.());
    afterAll(async () => fixture.teardown?.());
    afterEach(async () => fixture.cleanup());

    async function start(): Promise<void> {
      ({ a, b } = await fixture.fresh());
    }

    test(`${name} - node records: put overwrites, list returns every record whatever its age, get returns one, delete removes`, async () => {
      await start();
      expect(await a.listNodes()).toEqual([]);
      await a.putNode(node("n1", { heartbeatAt: 1 }));
      await b.putNode(node("n2"));
      await a.putNode(node("n1", { heartbeatAt: 99, counters: { "fetch.status.200": 7 } }));
      const listed = await b.listNodes();
      expect(sortById(listed)).toEqual([node("n1", { heartbeatAt: 99, counters: { "fetch.status.200": 7 } }), node("n2")]);
      expect(await b.getNode("n1")).toEqual(node("n1", { heartbeatAt: 99, counters: { "fetch.status.200": 7 } }));
      expect(await b.getNode("never-existed")).toBeUndefined();
      await b.deleteNode("n1");
      expect(await a.listNodes()).toEqual([node("n2")]);
      expect(await a.getNode("n1")).toBeUndefined();
      await a.deleteNode("never-existed");
      expect(await a.listNodes()).toEqual([node("n2")]);
    });

    test(`${name} - a node's history: its last records oldest first, ending with the current one, none after a delete`, async () => {
      await start();
      expect(await a.nodeHistory("n1")).toEqual([]);
      for (let beat = 1; beat <= 3; beat++) await a.putNode(node("n1", { heartbeatAt: beat }));
      await a.putNode(node("n2"));
      expect((await b.nodeHistory("n1")).map((r) => r.heartbeatAt)).toEqual([1, 2, 3]);
      for (let beat = 4; beat <= 9; beat++) await a.putNode(node("n1", { heartbeatAt: beat }));
      const kept = (await b.nodeHistory("n1")).map((r) => r.heartbeatAt);
      expect(kept.length).toBeGreaterThanOrEqual(5);
      expect(kept).toEqual(kept.toSorted((x, y) => x - y));
      expect(kept.at(-1)).toBe(9);
      await a.deleteNode("n1");
      expect(await b.nodeHistory("n1")).toEqual([]);
      await a.putNode(node("n1", { heartbeatAt: 100 }));
      expect((await b.nodeHistory("n1")).map((r) => r.heartbeatAt)).toEqual([100]);
    });

    test(`${name} - a listed record is a copy: changing it changes nothing stored`, async () => {
      await start();
      await a.putNode(node("n1"));
      const [copy] = await a.listNodes();
      copy!.partitions.push(42);
      expect((await a.listNodes())[0]!.partitions).toEqual([0, 1]);
    });

    test(`${name} - the ring: undefined before the first write, then read back with its revision`, async () => {
      await start();
      expect(await a.getRing()).toBeUndefined();
      const rev = await a.casRing(ring(1), 0);
      expect(rev).toBeGreaterThan(0);
      expect(await b.getRing()).toEqual({ ring: ring(1), revision: rev! });
    });

    test(`${name} - casRing writes only over the expected revision, and a conflict writes nothing`, async () => {
      await start();
      const r1 = (await a.casRing(ring(1), 0))!;
      expect(await b.casRing(ring(99), 0)).toBeUndefined(); // a ring exists already
      const r2 = await b.casRing(ring(2), r1);
      expect(r2).toBeGreaterThan(r1);
      expect(await a.casRing(ring(98), r1)).toBeUndefined(); // stale revision
      expect(await a.casRing(ring(97), r2! + 1000)).toBeUndefined(); // a revision from the future
      expect(await a.getRing()).toEqual({ ring: ring(2), revision: r2! });
    });

    test(`${name} - node writes do not disturb the ring's revision`, async () => {
      await start();
      const r1 = (await a.casRing(ring(1), 0))!;
      await b.putNode(node("n1"));
      await b.deleteNode("n1");
      expect(await a.casRing(ring(2), r1)).toBeGreaterThan(r1);
    });

    test(`${name} - two writers racing on one revision: exactly one wins`, async () => {
      await start();
      const base = (await a.casRing(ring(1), 0))!;
      for (let round = 0; round < 5; round++) {
        const current = (await a.getRing())!.revision;
        const outcomes = await Promise.all([a.casRing(ring(10 + round), current), b.casRing(ring(20 + round), current)]);
        expect(outcomes.filter((r) => r !== undefined)).toHaveLength(1);
      }
      expect((await a.getRing())!.revision).toBeGreaterThan(base);
      // Creating the first ring is a race too.
      const { a: c, b: d } = await fixture.fresh();
      const firsts = await Promise.all([c.casRing(ring(1), 0), d.casRing(ring(2), 0)]);
      expect(firsts.filter((r) => r !== undefined)).toHaveLength(1);
    });

    test(`${name} - watchRing delivers the current ring, then every later write once, in order`, async () => {
      await start();
      const r1 = (await a.casRing(ring(1), 0))!;
      const seen: [number, number][] = [];
      const stop = b.watchRing((r, rev) => seen.push([r.epoch, rev]));
      try {
        await waitFor(() => seen.length >= 1, "the current ring");
        const r2 = (await a.casRing(ring(2), r1))!;
        const r3 = (await a.casRing(ring(3), r2))!;
        await waitFor(() => seen.length >= 3, "two later writes");
        expect(seen).toEqual([
          [1, r1],
          [2, r2],
          [3, r3],
        ]);
      } finally {
        stop();
      }
    });

    test(`${name} - a watch started before any ring hears the first write, and none after stop`, async () => {
      await start();
      const first: number[] = [];
      const control: number[] = [];
      const stopFirst = b.watchRing((r) => first.push(r.epoch));
      const stopControl = a.watchRing((r) => control.push(r.epoch));
      try {
        // Set up asynchronously or not, a watch hears this write: as the current ring if it starts late.
        const r1 = (await a.casRing(ring(1), 0))!;
        await waitFor(() => first.length === 1 && control.length === 1, "the first ring");
        stopFirst();
        await a.casRing(ring(2), r1);
        await waitFor(() => control.length === 2, "the control watcher hears the second write");
        expect(first).toEqual([1]);
      } finally {
        stopFirst();
        stopControl();
      }
    });

    test(`${name} - a watch started right after a write hears that ring once`, async () => {
      await start();
      const seen: number[] = [];
      const r1 = (await a.casRing(ring(1), 0))!;
      const stop = a.watchRing((r) => seen.push(r.epoch));
      try {
        await waitFor(() => seen.length >= 1, "the current ring");
        await a.casRing(ring(2), r1);
        await waitFor(() => seen.length >= 2, "the next write");
        expect(seen).toEqual([1, 2]);
      } finally {
        stop();
      }
    });

    test(`${name} - a watch started while a write is in flight hears that ring once; one stopped at once hears nothing`, async () => {
      await start();
      const seen: number[] = [];
      const silent: number[] = [];
      const writing = a.casRing(ring(1), 0);
      const stop = a.watchRing((r) => seen.push(r.epoch));
      a.watchRing((r) => silent.push(r.epoch))();
      try {
        const r1 = (await writing)!;
        await waitFor(() => seen.length >= 1, "the first ring");
        await a.casRing(ring(2), r1);
        await waitFor(() => seen.length >= 2, "the next write");
        expect(seen).toEqual([1, 2]);
        expect(silent).toEqual([]);
      } finally {
        stop();
      }
    });

    test(`${name} - scope roots: a watch hears the roots stored so far, then those added later by another handle; none after stop`, async () => {
      await start();
      await a.addScopeRoots(["www.example.com", "[::1]", "xn--bcher-kva.example"]);
      const heard = new Set<string>();
      const stop = b.watchScopeRoots((hosts) => {
        for (const h of hosts) heard.add(h);
      });
      const stopped: string[] = [];
      b.watchScopeRoots((hosts) => {
        for (const h of hosts) stopped.push(h);
      })();
      try {
        await waitFor(() => heard.size === 3, "the roots stored so far");
        await a.addScopeRoots(["blog.example.org", "www.example.com"]);
        await waitFor(() => heard.has("blog.example.org"), "a root added later");
        expect([...heard].sort()).toEqual(["[::1]", "blog.example.org", "www.example.com", "xn--bcher-kva.example"]);
        // Roots live beside nodes and the ring without disturbing them.
        expect(await a.listNodes()).toEqual([]);
        expect(await a.getRing()).toBeUndefined();
        expect(stopped).toEqual([]);
      } finally {
        stop();
      }
    });

    test(`${name} - watchNodes hears the records present, then every later write and delete once, in order; none after stop`, async () => {
      await start();
      await a.putNode(node("n1"));
      await a.putNode(node("gone"));
      await a.deleteNode("gone");
      await a.putNode(node("n2"));
      const heard: string[] = [];
      const stop = b.watchNodes((c) => heard.push(`${c.kind} ${c.id}`));
      const silent: string[] = [];
      b.watchNodes((c) => silent.push(c.id))();
      try {
        // The records present, once each, without the one deleted before the watch began.
        await waitFor(() => heard.length >= 2, "the records present");
        await a.putNode(node("n3"));
        await a.putNode(node("n1", { heartbeatAt: 2 }));
        await a.deleteNode("n2");
        await waitFor(() => heard.length >= 5, "three later changes");
        expect(heard).toEqual(["put n1", "put n2", "put n3", "put n1", "delete n2"]);
        // Ring writes and scope roots are not node changes.
        await a.casRing(ring(1), 0);
        await a.addScopeRoots(["www.example.com"]);
        await a.putNode(node("n4"));
        await waitFor(() => heard.length >= 6, "the next node write");
        expect(heard.slice(5)).toEqual(["put n4"]);
        expect(silent).toEqual([]);
      } finally {
        stop();
      }
    });

    test(`${name} - a node watch started on an empty store hears the first record written`, async () => {
      await start();
      const heard: string[] = [];
      const stop = b.watchNodes((c) => heard.push(`${c.kind} ${c.id}`));
      try {
        await a.putNode(node("n1"));
        await waitFor(() => heard.length >= 1, "the first record");
        await a.deleteNode("n1");
        await waitFor(() => heard.length >= 2, "its delete");
        expect(heard).toEqual(["put n1", "delete n1"]);
      } finally {
        stop();
      }
    });

    test(`${name} - leases: granted when free, refused while another holds it, renewed by its holder, taken when expired; each grant's revision higher than the last`, async () => {
      await start();
      const t = 1_000_000;
      const first = await a.acquireLease("coordinator", "c1", 10_000, t);
      expect(first).toBeGreaterThan(0);
      expect(await b.acquireLease("coordinator", "c2", 10_000, t + 1)).toBe(false);
      const renewed = await a.acquireLease("coordinator", "c1", 10_000, t + 5_000); // renewal: now valid until t+15000
      expect(renewed).toBeGreaterThan(first as number);
      expect(await b.acquireLease("coordinator", "c2", 10_000, t + 12_000)).toBe(false);
      const taken = await b.acquireLease("coordinator", "c2", 10_000, t + 15_001); // expired: taken over, a higher term
      expect(taken).toBeGreaterThan(renewed as number);
      expect(await a.acquireLease("coordinator", "c1", 10_000, t + 15_002)).toBe(false);
      expect(await a.acquireLease("other-lease", "c1", 10_000, t + 15_002)).toBeGreaterThan(0); // leases are independent
    });

    test(`${name} - job records: created once, updated over their revision only, listed, watched`, async () => {
      await start();
      expect(await a.getJob("news")).toBeUndefined();
      expect(await a.listJobs()).toEqual([]);
      const heard: JobRecord[] = [];
      const stop = b.watchJobs((j) => heard.push(j));
      try {
        const r1 = await a.casJob(job("news", 1), 0);
        expect(r1).toBeGreaterThan(0);
        // A second create of the same id, or a write over a stale revision, writes nothing.
        expect(await b.casJob(job("news", 9), 0)).toBeUndefined();
        const r2 = await b.casJob({ ...job("news", 1), state: "paused" }, r1!);
        expect(r2).toBeGreaterThan(r1!);
        expect(await a.casJob({ ...job("news", 1), state: "cancelled" }, r1!)).toBeUndefined();
        await a.casJob(job("blogs", 2), 0);
        expect(await b.getJob("news")).toEqual({ job: { ...job("news", 1), state: "paused" }, revision: r2! });
        expect((await b.listJobs()).map((j) => `${j.id}:${j.number}:${j.state}`).sort()).toEqual(["blogs:2:running", "news:1:paused"]);
        await waitFor(() => heard.length >= 3, "three job writes");
        expect(heard.filter((j) => j.id === "news").map((j) => j.state)).toEqual(["running", "paused"]);
        // Jobs are not nodes: the node list is untouched.
        expect(await a.listNodes()).toEqual([]);
      } finally {
        stop();
      }
    });

    test(`${name} - two candidates racing for a free or expired lease: exactly one gets it`, async () => {
      await start();
      for (let round = 0; round < 5; round++) {
        const now = 1_000_000 + round * 100_000; // every round starts after the previous lease expired
        const got = await Promise.all([a.acquireLease("race", `a${round}`, 1_000, now), b.acquireLease("race", `b${round}`, 1_000, now)]);
        expect(got.filter(Boolean)).toHaveLength(1);
      }
    });
  });
}

// --- fixtures -------------------------------------------------------------------------------------------

const memoryStates: ClusterState[] = [];

clusterStateContract("MemoryClusterState", {
  async fresh() {
    const state = new MemoryClusterState();
    memoryStates.push(state);
    return { a: state, b: state };
  },
  async cleanup() {
    await Promise.all(memoryStates.splice(0).map((s) => s.close()));
  },
});

let nats: NatsServer | undefined;
let bucketCounter = 0;
const natsStates: ClusterState[] = [];
const connections: NatsConnection[] = [];

clusterStateContract("NatsKvClusterState", {
  async setup() {
    nats = await startNats({ jetstream: true });
  },
  async teardown() {
    await nats?.stop();
  },
  async fresh() {
    // A fresh bucket per test on a shared server: the store is empty without a server start each time.
    const bucket = `contract-${++bucketCounter}`;
    const [ca, cb] = await Promise.all([connectNats(nats!.url, "contract-a"), connectNats(nats!.url, "contract-b")]);
    connections.push(ca, cb);
    const a = await NatsKvClusterState.open(ca, { bucket });
    const b = await NatsKvClusterState.open(cb, { bucket });
    natsStates.push(a, b);
    return { a, b };
  },
  async cleanup() {
    await Promise.all(natsStates.splice(0).map((s) => s.close()));
    await Promise.all(connections.splice(0).map((c) => c.close()));
  },
});

// --- helpers --------------------------------------------------------------------------------------------

async function waitFor(cond: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function node(id: string, over: Partial<NodeRecord> = {}): NodeRecord {
  return {
    id,
    role: "frontier",
    region: "eu",
    runtime: "bun",
    status: "active",
    grpcAddress: "127.0.0.1:7001",
    httpAddress: "http://127.0.0.1:8001",
    startedAt: 1_732_900_000_000,
    heartbeatAt: 1_732_900_002_000,
    partitions: [0, 1],
    counters: { "fetch.pages": 3 },
    gauges: { queued: 10 },
    ...over,
  };
}

function job(id: string, number: number): JobRecord {
  return { id, number, maxPages: 10, maxDurationMs: 0, weight: 1, state: "running", createdAt: 1, startedAt: 1, scope: "host" };
}

function ring(epoch: number): RingRecord {
  return {
    epoch,
    partitions: 4,
    vnodes: 64,
    regions: { eu: { owners: ["n1", "n2", "n1", "n2"], previous: ["", "", "", epoch > 1 ? "n1" : ""] } },
  };
}

function sortById(nodes: NodeRecord[]): NodeRecord[] {
  return [...nodes].sort((x, y) => x.id.localeCompare(y.id));
}
