/**
 * The JobBudget contract (core/ports/job-budget.ts), one suite run against every implementation: the
 * in-memory `MemoryJobBudget` and `NatsKvJobBudget` on a real nats-server (two connections: two frontier
 * nodes). A take grants a chunk from the pool, a settle spends from the holder's custody, a give returns
 * unused units, two holders racing never get more than maxPages between them, and a holder's loss (reclaim)
 * returns exactly its unspent units, after which its settles fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryJobBudget } from "../../adapters/memory/index.ts";
import { connectNats, NatsKvClusterState, NatsKvJobBudget, type NatsConnection } from "../../adapters/nats/index.ts";
import type { JobBudget } from "../../core/ports/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

interface Implementation {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** Two handles on one store (two frontier nodes); may be the same object. */
  make(): Promise<[JobBudget, JobBudget]>;
}

let nats: NatsServer | undefined;
let connections: NatsConnection[] = [];
let buckets = 0;

const implementations: Implementation[] = [
  {
    name: "MemoryJobBudget (in-process)",
    setup: async () => {},
    teardown: async () => {},
    make: async () => {
      const budget = new MemoryJobBudget();
      return [budget, budget];
    },
  },
  {
    name: "NatsKvJobBudget (nats-server)",
    setup: async () => {
      nats = await startNats({ jetstream: true });
      connections = await Promise.all([connectNats(nats.url, "budget-a"), connectNats(nats.url, "budget-b")]);
    },
    teardown: async () => {
      for (const c of connections) await c.close();
      await nats?.stop();
    },
    make: async () => {
      // A fresh bucket made as the cluster makes it (the cluster state opens it first).
      const bucket = `budget-${++buckets}`;
      await NatsKvClusterState.open(connections[0]!, { bucket });
      return [await NatsKvJobBudget.open(connections[0]!, { bucket }), await NatsKvJobBudget.open(connections[1]!, { bucket })];
    },
  },
];

const chunkOf = (n: number) => () => n;

for (const impl of implementations) {
  describe(`JobBudget contract: ${impl.name}`, () => {
    beforeAll(() => impl.setup());
    afterAll(() => impl.teardown());

    test("budget - a take tops the custody up to the chunk from a pool made with maxPages", async () => {
      const [a] = await impl.make();
      expect(await a.read(7)).toBeUndefined();
      expect(await a.take(7, 100, "node-a", (left) => left / 4)).toEqual({ held: 25, left: 75 });
      // A custody as large as the chunk asked is left as it is; a larger chunk tops it up.
      expect(await a.take(7, 100, "node-a", chunkOf(10))).toEqual({ held: 25, left: 75 });
      expect(await a.settle(7, "node-a", 20)).toBe(5);
      expect(await a.take(7, 100, "node-a", chunkOf(40))).toEqual({ held: 40, left: 40 });
      expect(await a.read(7)).toEqual({ maxPages: 100, left: 40, held: 40 });
    });

    test("budget - a chunk is at least 1 and at most what is left", async () => {
      const [a] = await impl.make();
      expect(await a.take(1, 3, "node-a", chunkOf(0))).toEqual({ held: 1, left: 2 });
      expect(await a.settle(1, "node-a", 1)).toBe(0);
      expect(await a.take(1, 3, "node-a", chunkOf(50))).toEqual({ held: 2, left: 0 });
      expect(await a.settle(1, "node-a", 2)).toBe(0);
      expect(await a.take(1, 3, "node-a", chunkOf(50))).toEqual({ held: 0, left: 0 });
    });

    test("budget - settle spends from the custody and refuses to spend more than is held", async () => {
      const [a] = await impl.make();
      await a.take(2, 10, "node-a", chunkOf(4));
      expect(await a.settle(2, "node-a", 3)).toBe(1);
      expect(await a.settle(2, "node-a", 2)).toBeUndefined();
      expect(await a.settle(2, "node-b", 1)).toBeUndefined();
      expect(await a.read(2)).toEqual({ maxPages: 10, left: 6, held: 1 });
    });

    test("budget - give returns unused units to the pool, never more than held", async () => {
      const [a, b] = await impl.make();
      await a.take(3, 10, "node-a", chunkOf(6));
      await a.settle(3, "node-a", 2);
      expect(await a.give(3, "node-a", 100)).toBe(4);
      expect(await a.read(3)).toEqual({ maxPages: 10, left: 8, held: 0 });
      // Another holder can take what came back.
      expect(await b.take(3, 10, "node-b", chunkOf(100))).toEqual({ held: 8, left: 0 });
    });

    test("budget - two holders taking and spending at once never get more than maxPages between them", async () => {
      const [a, b] = await impl.make();
      const spentBy = async (budget: JobBudget, holder: string) => {
        let spent = 0;
        for (;;) {
          const { held } = await budget.take(4, 57, holder, chunkOf(3));
          if (held === 0) return spent;
          // Spend one at a time, as a frontier node spends tasks, racing the other holder's takes.
          for (let i = 0; i < held; i++) if ((await budget.settle(4, holder, 1)) !== undefined) spent++;
        }
      };
      const [sa, sb] = await Promise.all([spentBy(a, "node-a"), spentBy(b, "node-b")]);
      expect(sa + sb).toBe(57);
      expect(sa).toBeGreaterThan(0);
      expect(sb).toBeGreaterThan(0);
      expect(await a.read(4)).toEqual({ maxPages: 57, left: 0, held: 0 });
    });

    test("budget - reclaiming a lost holder returns exactly its unspent units, and its settles then fail", async () => {
      const [a, b] = await impl.make();
      await a.take(5, 20, "node-a", chunkOf(8));
      await a.settle(5, "node-a", 3);
      await a.take(6, 9, "node-a", chunkOf(2));
      await b.take(5, 20, "node-b", chunkOf(4));
      expect((await b.holders()).sort()).toEqual(["node-a", "node-b"]);
      // node-a is gone: the coordinator reclaims what it held and had not spent (5 of job 5, 2 of job 6).
      expect(await b.reclaim("node-a")).toBe(7);
      expect(await b.holders()).toEqual(["node-b"]);
      expect(await a.read(5)).toEqual({ maxPages: 20, left: 13, held: 4 });
      expect(await a.read(6)).toEqual({ maxPages: 9, left: 9, held: 0 });
      expect(await a.settle(5, "node-a", 1)).toBeUndefined();
      // A holder that comes back takes afresh from the pool.
      expect(await a.take(5, 20, "node-a", chunkOf(13))).toEqual({ held: 13, left: 0 });
      expect(await a.reclaim("node-a")).toBe(13);
      expect(await a.reclaim("node-a")).toBe(0);
    });
  });
}
