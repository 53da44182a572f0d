import { afterEach, expect, test } from "bun:test";
import { partitionOf } from "../../core/ring/index.ts";
import { FrontierClient } from "../../adapters/grpc/index.ts";
import type { FrontierStore } from "../../engine/frontier/index.ts";
import { FrontierStore as Store } from "../../engine/frontier/index.ts";
import type { HandoffPeer } from "./handoff-sender.ts";
import { discovered, publishUrls, REGION, ringOf, TestBed, waitFor, writeRing } from "./testing.ts";

const P = 8;
const HOSTS = Array.from({ length: 24 }, (_, i) => `h${i}.test`);
const URLS = HOSTS.flatMap((h) => [`http://${h}/`, `http://${h}/p1`, `http://${h}/p2`, `http://${h}/p3`]);
/** After its robots.txt, every host waits an hour: the queued URLs stay put while partitions move. */
const SLOW = { "min-gap": "1h", "max-gap": "2h" };
const moved = (p: number) => p % 2 === 1;
const isHome = (url: string) => url.endsWith("/");

let bed: TestBed;

afterEach(async () => {
  await bed.close();
});

/** Every queued URL of a store, one entry per queue row. */
function queued(store: FrontierStore): string[] {
  const out: string[] = [];
  for (let p = 0; p < P; p++) for (const q of store.queuedInPartition(p, undefined, 100_000)) out.push(q.url);
  return out.sort();
}

/** Handoff streams that have reached the gate. */
let held = 0;

/** A Handoff connection that waits for `gate` before streaming. */
function gatedDial(gate: Promise<void>): (address: string) => HandoffPeer {
  return (address) => {
    const client = new FrontierClient(address);
    return {
      handoff: async (chunks, opts) => {
        held++;
        await gate;
        return client.handoff(chunks, opts);
      },
      close: () => client.close(),
    };
  };
}

async function crawlUntilQueued(storeA: FrontierStore, gate: Promise<void>) {
  bed = new TestBed(P);
  held = 0;
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "a"),
  );
  const fetcher = bed.fetcher();
  const a = await bed.node("a", { store: storeA, policy: SLOW, dial: gatedDial(gate), handoffChunkSize: 7 });
  await waitFor(() => a.serving.length === P, "a to serve every partition");
  // Home pages come as seeds: their hosts are the scope's roots, which move with their partitions.
  await publishUrls(bed.bus, P, [...discovered(URLS.filter(isHome), true), ...discovered(URLS.filter((u) => !isHome(u)))]);
  await waitFor(
    () =>
      fetcher.tasks.filter((t) => t.kind === "robots").length === HOSTS.length &&
      a.frontier.inFlight === 0 &&
      a.frontier.snapshot().queued === URLS.length,
    "every host's robots.txt to be applied",
  );
  return { a, fetcher };
}

test("handoff - moves queued URLs and host state to the new owner, nothing lost or duplicated, and the receiver serves only after completion", async () => {
  const storeA = Store.open(":memory:");
  const storeB = Store.open(":memory:");
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const { a } = await crawlUntilQueued(storeA, gate);
  const before = queued(storeA);
  expect(before).toEqual([...URLS].sort());
  const movedHost = HOSTS.find((h) => moved(partitionOf(h, P)))!;
  const stateBefore = a.frontier.hostInfo(movedHost)!;

  const b = await bed.node("b", { store: storeB, policy: SLOW });
  await writeRing(
    bed.state,
    ringOf(
      P,
      (p) => (moved(p) ? "b" : "a"),
      (p) => (moved(p) ? "a" : ""),
      2,
    ),
  );
  await waitFor(() => b.pending.await.length === 4 && held === 4, "every handoff stream to reach the gate");
  const late = `http://${movedHost}/late`;
  await publishUrls(bed.bus, P, discovered([late]));

  // While the streams are held back: b serves nothing, and URLs published for a moved partition wait in its stream.
  expect(b.serving).toEqual([]);
  expect(a.serving).toEqual([0, 2, 4, 6]);
  expect(bed.bus.depth(`${REGION}/urls-${partitionOf(movedHost, P)}`)).toBe(1);

  open();
  await waitFor(() => b.serving.length === 4 && a.pending.handOff.length === 0, "the handoff to complete");
  await waitFor(() => queued(storeB).includes(late), "the waiting URL to reach the new owner");

  const after = [...queued(storeA), ...queued(storeB)].sort();
  expect(after).toEqual([...before, late].sort());
  expect(new Set(after).size).toBe(after.length);
  for (const url of queued(storeB)) expect(moved(partitionOf(new URL(url).host, P))).toBe(true);
  for (const url of queued(storeA)) expect(moved(partitionOf(new URL(url).host, P))).toBe(false);

  const stateAfter = b.frontier.hostInfo(movedHost)!;
  expect(stateAfter.robotsVerdict).toBe("allow-all");
  // The politeness state moved whole; a receiver whose own last stop was not clean (here: a new store) may
  // push the next fetch later, never earlier.
  expect({ ...stateAfter.state, nextAllowedAt: 0 }).toEqual({ ...stateBefore.state, nextAllowedAt: 0 });
  expect(stateAfter.state.nextAllowedAt).toBeGreaterThanOrEqual(stateBefore.state.nextAllowedAt);
  expect(stateAfter.queued).toBe(5);
  expect(a.frontier.hostInfo(movedHost)).toBeUndefined();
  // The seeds' scope roots came with their partitions (b also heard them from the cluster state, as no
  // partition's); a keeps them as roots, no longer its to replicate.
  const movedRoots = HOSTS.filter((h) => moved(partitionOf(h, P))).sort();
  expect([1, 3, 5, 7].flatMap((p) => storeB.scopeRoots.inPartition(p)).sort()).toEqual(movedRoots);
  expect([1, 3, 5, 7].flatMap((p) => storeA.scopeRoots.inPartition(p))).toEqual([]);
  expect(storeA.scopeRoots.list().sort()).toEqual([...HOSTS].sort());
  expect(b.frontier.explainUrl(`http://${movedHost}/p1`, movedHost).known).toBe(true);
  expect(a.frontier.snapshot().queued + b.frontier.snapshot().queued).toBe(URLS.length + 1);
  const ring = (await bed.state.getRing())!.ring;
  expect(ring.regions[REGION]!.previous.every((x) => x === "")).toBe(true);
  expect(b.frontier.counters.get("handoff.received.partitions")).toBe(4);
});

test("handoff - a partition with a fetch in flight is handed over only after its result came back to the giver", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "a"),
  );
  const host = HOSTS.find((h) => moved(partitionOf(h, P)))!;
  const urls = [`http://${host}/`, `http://${host}/p1`, `http://${host}/p2`];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const fetcher = bed.fetcher({ hold: (t) => (t.kind === "robots" ? held : undefined) });
  const a = await bed.node("a");
  const b = await bed.node("b");
  await waitFor(() => a.serving.length === P, "a to serve every partition");
  await publishUrls(bed.bus, P, discovered(urls));
  await waitFor(() => fetcher.tasks.length === 1 && a.frontier.inFlight === 1, "the robots.txt task to be in flight");

  await writeRing(
    bed.state,
    ringOf(
      P,
      (p) => (moved(p) ? "b" : "a"),
      (p) => (moved(p) ? "a" : ""),
      2,
    ),
  );
  await waitFor(() => a.pending.handOff.length === 4 && b.pending.await.length === 4, "the handoff to wait for the fetch in flight");
  expect(a.pending.handOff).toContain(partitionOf(host, P));
  expect(fetcher.tasks.length).toBe(1);

  release();

  await waitFor(
    () => fetcher.pages().length === urls.length && b.frontier.inFlight === 0 && a.pending.handOff.length === 0,
    "the new owner to fetch the host's pages and the giver to finish",
  );
  expect(fetcher.tasks.filter((t) => t.kind === "robots").length).toBe(1);
  expect(fetcher.pages().sort()).toEqual(urls.sort());
  expect(fetcher.tasks.filter((t) => t.kind === "page").every((t) => t.taskId.startsWith("b-"))).toBe(true);
  expect(a.frontier.counters.get("frontier.stale-results")).toBe(0);
  expect(a.frontier.hostInfo(host)).toBeUndefined();
});

test("handoff - when the giver dies mid-handoff and the coordinator clears previous, the new owner serves what it has", async () => {
  const storeA = Store.open(":memory:");
  const { a } = await crawlUntilQueued(storeA, new Promise<void>(() => {}));
  const b = await bed.node("b", { policy: SLOW });
  await writeRing(
    bed.state,
    ringOf(
      P,
      (p) => (moved(p) ? "b" : "a"),
      (p) => (moved(p) ? "a" : ""),
      2,
    ),
  );
  await waitFor(() => b.pending.await.length === 4, "b to await its partitions");

  await a.crash();
  await writeRing(
    bed.state,
    ringOf(
      P,
      () => "b",
      () => "",
      3,
    ),
  );

  await waitFor(() => b.serving.length === P, "b to serve every partition at once");
  expect(b.pending.await).toEqual([]);
});

test("handoff - a drained node hands every partition over and then deletes its record", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "a"),
  );
  bed.fetcher();
  const a = await bed.node("a", { policy: SLOW });
  const b = await bed.node("b", { policy: SLOW });
  await waitFor(() => a.serving.length === P, "a to serve every partition");
  // Home pages come as seeds: their hosts are the scope's roots, which move with their partitions.
  await publishUrls(bed.bus, P, [...discovered(URLS.filter(isHome), true), ...discovered(URLS.filter((u) => !isHome(u)))]);
  await waitFor(() => a.frontier.snapshot().queued === URLS.length && a.frontier.inFlight === 0, "a to queue every URL");

  const client = new FrontierClient(a.grpcAddress);
  try {
    await client.drain();
  } finally {
    client.close();
  }
  expect(a.frontier.isDraining).toBe(true);
  expect((await bed.state.listNodes()).find((n) => n.id === "a")?.status).toBe("draining");
  // The coordinator moves every partition away from the draining node.
  await writeRing(
    bed.state,
    ringOf(
      P,
      () => "b",
      () => "a",
      2,
    ),
  );

  await waitFor(async () => !(await bed.state.listNodes()).some((n) => n.id === "a"), "a to delete its record");
  await waitFor(() => b.serving.length === P, "b to serve every partition");
  expect(b.frontier.snapshot().queued).toBe(URLS.length);
  expect(a.frontier.snapshot().queued).toBe(0);
});
