/**
 * The self-fence: a frontier node whose last heartbeat written is nearly as old as the coordinator's death
 * timeout stops acting on every partition, beats, re-reads the ring and resumes only with what the ring
 * still gives it. First the fence alone on a fake clock, then a node "thawed" (its clock jumped past the
 * limit) whose ring watch has not yet delivered the ring that took its partitions: it hands out nothing
 * for them.
 */
import { afterEach, expect, test } from "bun:test";
import type { RingRecord } from "../../core/cluster/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { silentLog } from "../../kit/log/index.ts";
import { FrontierClient } from "../../adapters/grpc/index.ts";
import { DiscoveredUrl } from "../../proto/gen/crawler/fetch/v1/fetch.ts";
import { SelfFence } from "./self-fence.ts";
import { discovered, publishUrls, ringOf, TestBed, waitFor, writeRing } from "./testing.ts";

let bed: TestBed | undefined;

afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** A fence over a fake clock whose beats are written at once (or fail while `down`), with what it did. */
function fenceOnFakeClock(deathTimeoutMs = 10_000) {
  const t = { now: 1_000_000, down: false, ringFails: 0, beats: 0, rings: 0, resumed: 0 };
  const counters = new Counters();
  const fence: SelfFence = new SelfFence({
    now: () => t.now,
    deathTimeoutMs: () => deathTimeoutMs,
    beat: async () => {
      t.beats++;
      if (!t.down) fence.beatWritten(t.now);
    },
    refreshRing: async () => {
      if (t.ringFails > 0) {
        t.ringFails--;
        throw new Error("the ring cannot be read: no responders");
      }
      t.rings++;
    },
    onResume: () => t.resumed++,
    settleMs: 0,
    // A macrotask turn, so a recovery that keeps failing lets the test run.
    sleep: () => new Promise((resolve) => setTimeout(resolve, 0)),
    counters,
    log: silentLog,
  });
  return { t, fence, counters };
}

test("self-fence - allows acting while the last heartbeat written is younger than three quarters of the death timeout", () => {
  const { t, fence } = fenceOnFakeClock();
  fence.beatWritten(t.now);
  expect(fence.limitMs).toBe(7_500);
  t.now += 7_499;
  expect(fence.allows()).toBe(true);
  fence.beatWritten(t.now);
  t.now += 7_000;
  expect(fence.allows()).toBe(true);
  expect(fence.suspended).toBe(false);
});

test("self-fence - past the limit it suspends once, beats, re-reads the ring and resumes", async () => {
  const { t, fence, counters } = fenceOnFakeClock();
  t.now += 30_000; // thawed after a 30 s freeze
  expect(fence.allows()).toBe(false);
  expect(fence.suspended).toBe(true);
  expect(fence.allows()).toBe(false);
  await fence.ready();
  expect(fence.allows()).toBe(true);
  expect(t.beats).toBe(1);
  expect(t.rings).toBe(1);
  expect(t.resumed).toBe(1);
  expect(counters.get("node.fence.suspended")).toBe(1);
});

test("self-fence - a slow start before the first heartbeat is no silence", () => {
  const { t, fence } = fenceOnFakeClock();
  t.now += 20_000; // the node took 20 s to connect and write its first record
  fence.beatWritten(t.now);
  expect(fence.suspended).toBe(false);
  expect(fence.allows()).toBe(true);
});

test("self-fence - a heartbeat written after a silence as long as the limit suspends, fresh as it is", async () => {
  const { t, fence } = fenceOnFakeClock();
  fence.beatWritten(t.now);
  t.now += 20_000;
  // The heartbeat's timer ran first after the thaw, and its write got through before any check.
  fence.beatWritten(t.now);
  expect(fence.suspended).toBe(true);
  expect(fence.allows()).toBe(false);
  await fence.ready();
  expect(t.rings).toBe(1);
});

test("self-fence - stays suspended while its beat fails or the ring cannot be read, and resumes once both succeed", async () => {
  const { t, fence } = fenceOnFakeClock();
  t.down = true;
  t.ringFails = 2;
  t.now += 10_000;
  expect(fence.allows()).toBe(false);
  await waitFor(() => t.beats >= 3, "the fence to keep beating while beats fail");
  expect(fence.suspended).toBe(true);
  expect(t.rings).toBe(0);
  t.down = false;
  await fence.ready();
  expect(t.rings).toBe(1);
  expect(t.ringFails).toBe(0);
  expect(fence.allows()).toBe(true);
});

test("self-fence - follows the death timeout it is given (the ring's)", () => {
  const { t, fence } = fenceOnFakeClock(3_000);
  t.now += 2_249;
  expect(fence.allows()).toBe(true);
  t.now += 1;
  expect(fence.allows()).toBe(false);
});

/** The bed's cluster state with a ring watch that holds every ring until `release()` (a watch delivering late). */
function lateRingWatch(state: ClusterState): ClusterState & { hold: boolean; release(): void } {
  const wrapper = Object.create(state) as ClusterState & { hold: boolean; release(): void };
  const held: Array<() => void> = [];
  wrapper.hold = false;
  wrapper.watchRing = (onRing) =>
    state.watchRing((ring: RingRecord, revision: number) => {
      if (wrapper.hold) held.push(() => onRing(ring, revision));
      else onRing(ring, revision);
    });
  wrapper.release = () => {
    wrapper.hold = false;
    for (const f of held.splice(0)) f();
  };
  return wrapper;
}

test("self-fence - a node thawed after its partitions moved hands out nothing for them, even before its ring watch tells it", async () => {
  const P = 4;
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(bed.state, { ...ringOf(P, () => "n1"), deathTimeoutMs: 2_000 });
  let offset = 0;
  const state = lateRingWatch(bed.state);
  const node = await bed.node("n1", { state, now: () => Date.now() + offset });
  const fetcher = bed.fetcher();
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => fetcher.pages().length === 1, "h0's home page to be fetched");
  // Its tasks carry the epoch under which it took their partitions: a fencing token for later readers.
  expect(fetcher.tasks.map((t) => t.ownerEpoch)).toEqual([1, 1]);

  // Frozen: the coordinator found n1 dead and gave everything to n2, whose ring n1's watch has not delivered.
  state.hold = true;
  await writeRing(bed.state, {
    ...ringOf(
      P,
      () => "n2",
      () => "",
      2,
    ),
    deathTimeoutMs: 2_000,
  });
  const tasksBefore = fetcher.tasks.length;
  offset += 30_000; // thawed: its clock says 30 s passed since its last beat
  await publishUrls(bed.bus, P, discovered(["http://h1.test/", "http://h2.test/", "http://h3.test/"], true));
  // A seed sent to it while suspended goes to its partition's stream (for whoever owns it), not into its store.
  const client = new FrontierClient(node.grpcAddress);
  try {
    expect((await client.enqueue({ urls: [DiscoveredUrl.fromPartial({ url: "http://h4.test/", isSeed: true })] })).admitted).toBe(1);
  } finally {
    client.close();
  }
  expect(node.frontier.counters.get("node.enqueue.forwarded")).toBe(1);

  await waitFor(() => node.serving.length === 0, "n1 to apply the ring it re-read");
  expect(node.frontier.counters.get("node.fence.suspended")).toBeGreaterThanOrEqual(1);
  // Give the dispatcher every chance to run: it must not hand out a task for the partitions n2 owns.
  await new Promise((r) => setTimeout(r, 300));
  expect(fetcher.tasks.slice(tasksBefore)).toEqual([]);
  expect(node.frontier.inFlight).toBe(0);
  state.release();
});

test("self-fence - a partition the re-read ring says to receive back from another node was lost meanwhile: its task in flight is dropped", async () => {
  const P = 4;
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(bed.state, { ...ringOf(P, () => "n1"), deathTimeoutMs: 2_000 });
  let offset = 0;
  const state = lateRingWatch(bed.state);
  const node = await bed.node("n1", { state, now: () => Date.now() + offset });
  // The page task is taken and never answered: it stays in flight on n1, as a task out at a freeze.
  bed.fetcher({ answer: (t) => t.kind !== "page" });
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => node.frontier.counters.get("frontier.tasks.page") === 1 && node.frontier.inFlight === 1, "the page task out");

  // While n1 was frozen its partitions went to n2 and, once n1 beat again, came back to be handed over by
  // n2: the ring it reads after beating is the last one, with n2 as `previous` everywhere.
  state.hold = true;
  await writeRing(bed.state, {
    ...ringOf(
      P,
      () => "n2",
      () => "",
      2,
    ),
    deathTimeoutMs: 2_000,
  });
  await writeRing(bed.state, {
    ...ringOf(
      P,
      () => "n1",
      () => "n2",
      3,
    ),
    deathTimeoutMs: 2_000,
  });
  offset += 30_000;

  await waitFor(() => node.frontier.counters.get("node.partitions.lost") === P, "n1 to count its partitions lost");
  expect(node.frontier.inFlight).toBe(0);
  expect(node.serving).toEqual([]);
  expect(node.pending.await).toEqual([0, 1, 2, 3]);
  state.release();
});
