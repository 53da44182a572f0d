/**
 * The PartitionReplica contract (core/ports/partition-replica.ts), one suite run against every
 * implementation: the in-process MemoryPartitionReplica and JetStreamPartitionReplica on a real
 * nats-server (a JetStream stream and object store). Each test uses a region of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PartitionReplica, ReplicaEntry, SnapshotInfo } from "../../core/ports/index.ts";
import { MemoryPartitionReplica } from "../../adapters/memory/index.ts";
import { connectNats, JetStreamPartitionReplica, type NatsConnection } from "../../adapters/nats/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { maxOf } from "../../core/stats/index.ts";

interface Fixture {
  setup(): Promise<void>;
  teardown(): Promise<void>;
  replica(): PartitionReplica;
  /** A second handle on the same replica (another node). */
  other(): PartitionReplica;
}

let regions = 0;
const freshRegion = () => `replica-${++regions}`;
const A = { node: "node-a", store: "store-a" };
const B = { node: "node-b", store: "store-b" };

async function all(entries: AsyncIterable<ReplicaEntry>): Promise<ReplicaEntry[]> {
  const out: ReplicaEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

function replicaContract(name: string, fixture: Fixture): void {
  describe(`${name} - PartitionReplica contract`, () => {
    beforeAll(() => fixture.setup());
    afterAll(() => fixture.teardown());

    test(`${name} - claims and batches come back in the order they were stored, each partition on its own`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      const c1 = await r.claim(region, 3, A, 0);
      const b1 = await r.append(region, 3, { writer: A, epoch: c1, first: 1, last: 2, body: "[[1,[]],[2,[]]]" });
      const other = await r.append(region, 4, { writer: B, epoch: 0, first: 1, last: 1, body: "[[1,[]]]" });
      const b2 = await r.append(region, 3, { writer: A, epoch: c1, first: 3, last: 3, body: '[[3,[["x","u"]]]]' });
      expect(c1).toBeLessThan(b1);
      expect(b1).toBeLessThan(other);
      expect(other).toBeLessThan(b2);
      const got = await all(r.read(region, 3, 0, Number.MAX_SAFE_INTEGER));
      expect(got).toEqual([
        { kind: "claim", seq: c1, writer: A, after: 0 },
        { kind: "batch", seq: b1, writer: A, epoch: c1, first: 1, last: 2, body: "[[1,[]],[2,[]]]" },
        { kind: "batch", seq: b2, writer: A, epoch: c1, first: 3, last: 3, body: '[[3,[["x","u"]]]]' },
      ]);
      expect((await all(r.read(region, 3, b1 + 1, b2 - 1))).length).toBe(0);
      expect((await all(r.read(region, 3, b1, b1))).map((e) => e.seq)).toEqual([b1]);
      expect((await all(r.read(region, 3, b2 + 1, b2 + 100))).length).toBe(0);
      expect(await all(r.read(region, 5, 0, Number.MAX_SAFE_INTEGER))).toEqual([]);
    });

    test(`${name} - the last claim is the latest one, seen from another handle; none before the first`, async () => {
      const region = freshRegion();
      await fixture.replica().ensureRegion(region);
      expect(await fixture.other().lastClaim(region, 0)).toBeUndefined();
      await fixture.replica().claim(region, 0, A, 0);
      const second = await fixture.other().claim(region, 0, B, 7);
      await fixture.replica().append(region, 0, { writer: A, epoch: 1, first: 1, last: 1, body: "[]" });
      expect(await fixture.replica().lastClaim(region, 0)).toEqual({ kind: "claim", seq: second, writer: B, after: 7 });
    });

    test(`${name} - a batch appended again with the same writer, epoch and rows is stored once; one with more rows is another`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      const batch = { writer: A, epoch: 5, first: 10, last: 12, body: "[]" };
      const first = await r.append(region, 1, batch);
      expect(await fixture.other().append(region, 1, batch)).toBe(first);
      const longer = await r.append(region, 1, { ...batch, last: 14 });
      expect(longer).toBeGreaterThan(first);
      expect((await all(r.read(region, 1, 0, Number.MAX_SAFE_INTEGER))).map((e) => (e.kind === "batch" ? e.last : 0))).toEqual([12, 14]);
    });

    test(`${name} - a snapshot is replaced whole and read back chunk by chunk`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      expect(await r.getSnapshot(region, 2)).toBeUndefined();
      const info = (n: number): SnapshotInfo => ({ writer: A, epoch: 3, n, fromSeq: n + 1, takenAt: 1_000 + n });
      const big = "x".repeat(300_000);
      await r.putSnapshot(region, 2, info(1), chunksOf(["first", big, "third"]));
      await r.putSnapshot(region, 2, info(2), chunksOf(["only"]));
      const snap = await fixture.other().getSnapshot(region, 2);
      expect(snap?.info).toEqual(info(2));
      const chunks: string[] = [];
      for await (const c of snap!.chunks) chunks.push(c);
      expect(chunks).toEqual(["only"]);
      await r.putSnapshot(region, 7, info(3), chunksOf(["a", big, "c"]));
      const seven: string[] = [];
      for await (const c of (await r.getSnapshot(region, 7))!.chunks) seven.push(c);
      expect(seven).toEqual(["a", big, "c"]);
    });

    test(`${name} - trim forgets batches and old claims before a sequence, keeps the latest claim and later entries`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      const c1 = await r.claim(region, 0, A, 0);
      const b1 = await r.append(region, 0, { writer: A, epoch: c1, first: 1, last: 1, body: "[]" });
      const c2 = await r.claim(region, 0, B, 0);
      const b2 = await r.append(region, 0, { writer: B, epoch: c2, first: 1, last: 1, body: "[]" });
      const b3 = await r.append(region, 0, { writer: B, epoch: c2, first: 2, last: 2, body: "[]" });
      const keep = await r.append(region, 1, { writer: A, epoch: 0, first: 1, last: 1, body: "[]" });
      await r.trim(region, 0, b3);
      expect((await all(r.read(region, 0, 0, Number.MAX_SAFE_INTEGER))).map((e) => e.seq)).toEqual([c2, b3]);
      expect((await r.lastClaim(region, 0))?.seq).toBe(c2);
      expect((await all(r.read(region, 1, 0, Number.MAX_SAFE_INTEGER))).map((e) => e.seq)).toEqual([keep]);
      expect(b1).toBeLessThan(b2);
    });

    test(`${name} - trim keeps a claim that is the log's very first entry, and trimming before it removes nothing`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      // A partition claimed first thing in a new region, then snapshotted with no rows: its claim is sequence 1.
      const claim = await r.claim(region, 0, A, 0);
      expect(claim).toBe(1);
      await r.trim(region, 0, claim + 1);
      expect((await r.lastClaim(region, 0))?.seq).toBe(claim);
      const batch = await r.append(region, 0, { writer: A, epoch: claim, first: 1, last: 1, body: "[]" });
      await r.trim(region, 0, 1);
      expect((await all(r.read(region, 0, 0, Number.MAX_SAFE_INTEGER))).map((e) => e.seq)).toEqual([claim, batch]);
    });

    test(`${name} - a long log is read whole, in order`, async () => {
      const r = fixture.replica();
      const region = freshRegion();
      await r.ensureRegion(region);
      const seqs = await Promise.all(
        Array.from({ length: 700 }, (_, i) =>
          r.append(region, 9, { writer: A, epoch: 0, first: i + 1, last: i + 1, body: `[[${i + 1},[]]]` }),
        ),
      );
      const got = await all(r.read(region, 9, 0, maxOf(seqs)));
      expect(got.map((e) => (e.kind === "batch" ? e.first : -1))).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));
    });
  });
}

async function* chunksOf(list: string[]): AsyncIterable<string> {
  yield* list;
}

const memory = new MemoryPartitionReplica();
replicaContract("MemoryPartitionReplica", {
  setup: async () => {},
  teardown: async () => {},
  replica: () => memory,
  other: () => memory,
});

let nats: NatsServer | undefined;
const conns: NatsConnection[] = [];
const handles: PartitionReplica[] = [];
replicaContract("JetStreamPartitionReplica (nats-server)", {
  setup: async () => {
    nats = await startNats({ jetstream: true });
    for (const name of ["replica-a", "replica-b"]) {
      const nc = await connectNats([nats.url], name);
      conns.push(nc);
      handles.push(new JetStreamPartitionReplica(nc));
    }
  },
  teardown: async () => {
    for (const h of handles) await h.close();
    for (const nc of conns) await nc.close();
    await nats?.stop();
  },
  replica: () => handles[0]!,
  other: () => handles[1]!,
});
