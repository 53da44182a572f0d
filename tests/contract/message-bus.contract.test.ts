/**
 * The MessageBus contract (core/ports/cluster.ts), one suite run against every implementation: the
 * in-process MemoryBus and the JetStreamBus on a real nats-server. Each test gets two buses over one
 * store (two connections for JetStream, the same object in memory), so "another subscriber" can be
 * another process. Ack waits and the duplicate window are short so redelivery tests stay fast; waits poll for a
 * condition, and the only timed waits are the deliberate "nothing comes back" windows.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Delivery, MessageBus, Subscription } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { MemoryBus } from "../../adapters/memory/index.ts";
import { connectNats, JetStreamBus, type NatsConnection } from "../../adapters/nats/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const ACK_WAIT_MS = 500;
/** Short, so a test can publish a task again after it. */
const DUPLICATE_WINDOW_MS = 1_000;
const PARTITIONS = 4;

interface BusPair {
  bus: MessageBus;
  /** A second handle on the same store (another node); may be `bus` itself. */
  other: MessageBus;
}

interface BusFixture {
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** Two handles on a fresh, empty store (or a fresh region of a shared one), with short ack waits. */
  fresh(): Promise<BusPair>;
  cleanup(): Promise<void>;
}

let regionCounter = 0;
/** A region name unused so far in this process, so tests sharing a server never see each other's streams. */
const freshRegion = () => `r${++regionCounter}`;

function messageBusContract(name: string, fixture: BusFixture): void {
  describe(`${name} - MessageBus contract`, () => {
    const subs: Subscription[] = [];
    let region = "";
    let bus: MessageBus;
    let other: MessageBus;

    beforeAll(async () => fixture.setup?.());
    afterAll(async () => fixture.teardown?.());
    afterEach(async () => {
      await Promise.all(subs.splice(0).map((s) => s.stop()));
      await fixture.cleanup();
    });

    async function start(): Promise<void> {
      ({ bus, other } = await fixture.fresh());
      region = freshRegion();
      await bus.ensureRegion(region, PARTITIONS);
    }

    /** Subscribes and records every delivery; `onDelivery` decides what to do with each (default: ack). */
    function record<T>(
      subscribe: (h: (d: Delivery<T>) => Promise<void>) => Subscription,
      onDelivery: (d: Delivery<T>, n: number) => Promise<void> | void = (d) => d.ack(),
    ) {
      const got: { data: T; deliveryCount: number; copy: number; at: number }[] = [];
      const sub = subscribe(async (d) => {
        got.push({ data: d.data, deliveryCount: d.deliveryCount, copy: d.copy, at: performance.now() });
        await onDelivery(d, got.length);
      });
      subs.push(sub);
      return { got, sub };
    }

    test(`${name} - a task asking for rendering goes only to the render queue's subscribers, every other only to the fetch queue's`, async () => {
      await start();
      const plain = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 2 }));
      const renderers = record<FetchTask>((h) => other.consumeTasks(region, h, { concurrency: 2, render: true }));
      const rendered: FetchTask = { ...task("r1"), render: "auto", robotsText: "User-agent: *\nDisallow: /x\n" };
      await Promise.all([bus.publishTask(region, task("p1")), bus.publishTask(region, rendered), bus.publishTask(region, task("p2"))]);
      await waitFor(() => plain.got.length >= 2 && renderers.got.length >= 1, "both queues delivered");
      // Two ack waits: a task that went to the wrong queue, or twice, would have come by then.
      const at = performance.now();
      await waitFor(() => performance.now() - at > 2 * ACK_WAIT_MS, "two ack waits");
      expect(plain.got.map((g) => g.data.taskId).sort()).toEqual(["p1", "p2"]);
      expect(renderers.got.map((g) => g.data)).toEqual([rendered]);
    });

    test(`${name} - each message type makes the round trip intact, delivered once`, async () => {
      await start();
      const tasks = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 2 }));
      const results = record<FetchResult>((h) => bus.consumeResults(region, 2, h));
      const urls = record<DiscoveredUrl[]>((h) => bus.consumeUrls(region, 3, h));
      await Promise.all([
        bus.publishTask(region, task("t1")),
        bus.publishResult(region, result("t1", 2)),
        bus.publishUrls(region, 3, links(3)),
      ]);
      await waitFor(() => tasks.got.length >= 1 && results.got.length >= 1 && urls.got.length >= 1, "all three delivered");
      // Markers published after them, and two ack waits: a second delivery of any would have come by then.
      const markerAt = performance.now();
      await Promise.all([
        bus.publishTask(region, task("marker")),
        bus.publishResult(region, result("marker", 2)),
        bus.publishUrls(region, 3, links(3, "marker")),
      ]);
      await waitFor(
        () => tasks.got.length >= 2 && results.got.length >= 2 && urls.got.length >= 2 && performance.now() - markerAt > 2 * ACK_WAIT_MS,
        "the markers, and two ack waits",
      );
      expect(tasks.got.map((g) => g.data.taskId)).toEqual(["t1", "marker"]);
      expect(results.got.map((g) => g.data.taskId)).toEqual(["t1", "marker"]);
      expect(urls.got).toHaveLength(2);
      expect(tasks.got[0]).toMatchObject({ data: task("t1"), deliveryCount: 1 });
      expect(results.got[0]).toMatchObject({ data: result("t1", 2), deliveryCount: 1 });
      expect(urls.got[0]).toMatchObject({ data: links(3), deliveryCount: 1 });
    });

    test(`${name} - ensureRegion is idempotent, and a publish before it rejects`, async () => {
      await start();
      await bus.ensureRegion(region, PARTITIONS);
      await other.ensureRegion(region, PARTITIONS);
      await expect(bus.publishTask(freshRegion(), task("nowhere"))).rejects.toThrow();
    });

    test(`${name} - many publishes in flight at once all resolve, and every message arrives once`, async () => {
      await start();
      const n = 500;
      const got = record<FetchResult>((h) => other.consumeResults(region, 1, h));
      await Promise.all(Array.from({ length: n }, (_, i) => bus.publishResult(region, result(`m${i}`, 1))));
      const deliveries = () => {
        const count = new Map<string, number>();
        for (const g of got.got) count.set(g.data.taskId, (count.get(g.data.taskId) ?? 0) + 1);
        return count;
      };
      await waitFor(() => deliveries().size === n, `${n} results delivered`);
      // A second delivery would come by now: a marker published after them, and three ack waits.
      const markerAt = performance.now();
      await bus.publishResult(region, result("marker", 1));
      await waitFor(() => deliveries().has("marker") && performance.now() - markerAt > 3 * ACK_WAIT_MS, "the marker, and three ack waits");
      const count = deliveries();
      expect(got.got.length).toBe(n + 1);
      expect([...count].filter(([, times]) => times !== 1)).toEqual([]);
    });

    test(`${name} - an acked message is gone: no other subscriber ever gets it`, async () => {
      await start();
      const first = record<DiscoveredUrl[]>((h) => bus.consumeUrls(region, 0, h));
      await bus.publishUrls(region, 0, links(0, "acked"));
      await waitFor(() => first.got.length === 1, "first delivery");
      const ackedAt = performance.now();
      await first.sub.stop();
      const second = record<DiscoveredUrl[]>((h) => other.consumeUrls(region, 0, h));
      await bus.publishUrls(region, 0, links(0, "marker"));
      await waitFor(() => second.got.length >= 1 && performance.now() - ackedAt > 3 * ACK_WAIT_MS, "marker, and three ack waits");
      expect(second.got.map((g) => g.data[0]!.url)).toEqual([links(0, "marker")[0]!.url]);
    });

    test(`${name} - a nak'ed message comes back with deliveryCount 2, after the delay when given`, async () => {
      await start();
      const now = record<FetchResult>(
        (h) => bus.consumeResults(region, 0, h),
        (d, n) => (n === 1 ? d.nak() : d.ack()),
      );
      await bus.publishResult(region, result("nak-now", 0));
      await waitFor(() => now.got.length === 2, "redelivery after nak");
      expect(now.got.map((g) => [g.data.taskId, g.deliveryCount])).toEqual([
        ["nak-now", 1],
        ["nak-now", 2],
      ]);
      // The same stored message: the same copy.
      expect(now.got[1]!.copy).toBe(now.got[0]!.copy);

      const delayed = record<FetchResult>(
        (h) => bus.consumeResults(region, 1, h),
        (d, n) => (n === 1 ? d.nak(300) : d.ack()),
      );
      await bus.publishResult(region, result("nak-later", 1));
      await waitFor(() => delayed.got.length === 2, "redelivery after nak(300)");
      expect(delayed.got[1]!.deliveryCount).toBe(2);
      expect(delayed.got[1]!.at - delayed.got[0]!.at).toBeGreaterThanOrEqual(250);
    });

    test(`${name} - a handler that throws gets its message again`, async () => {
      await start();
      const got = record<FetchResult>(
        (h) => bus.consumeResults(region, 2, h),
        (d, n) => {
          if (n === 1) throw new Error("handler failure (expected in this test)");
          return d.ack();
        },
      );
      await bus.publishResult(region, result("throws", 2));
      await waitFor(() => got.got.length === 2, "redelivery after a throw", 5_000);
      expect(got.got[1]!.deliveryCount).toBe(2);
    });

    test(`${name} - a term'ed message never comes back`, async () => {
      await start();
      const got = record<DiscoveredUrl[]>(
        (h) => bus.consumeUrls(region, 1, h),
        (d, n) => (n === 1 ? d.term("poison") : d.ack()),
      );
      await bus.publishUrls(region, 1, links(1, "poison"));
      await waitFor(() => got.got.length === 1, "first delivery");
      const termedAt = performance.now();
      await bus.publishUrls(region, 1, links(1, "marker"));
      await waitFor(() => got.got.length >= 2 && performance.now() - termedAt > 3 * ACK_WAIT_MS, "marker, and three ack waits");
      expect(got.got.map((g) => g.data[0]!.url)).toEqual([links(1, "poison")[0]!.url, links(1, "marker")[0]!.url]);
    });

    test(`${name} - a task not acked within the ack wait goes to another subscriber`, async () => {
      await start();
      let release!: () => void;
      const stuck = new Promise<void>((r) => (release = r));
      // A busy node: its only handler slot hangs on the task and never acks it.
      const busy = record<FetchTask>(
        (h) => bus.consumeTasks(region, h, { concurrency: 1 }),
        () => stuck,
      );
      await bus.publishTask(region, task("slow"));
      await waitFor(() => busy.got.length === 1, "first delivery to the busy node");
      const idle = record<FetchTask>((h) => other.consumeTasks(region, h, { concurrency: 1 }));
      await waitFor(() => idle.got.length === 1, "redelivery to the idle node", 5_000);
      expect(idle.got[0]!.deliveryCount).toBe(2);
      expect(idle.got[0]!.at - busy.got[0]!.at).toBeGreaterThanOrEqual(ACK_WAIT_MS - 50);
      release();
    });

    test(`${name} - tasks are de-duplicated on taskId`, async () => {
      await start();
      await bus.publishTask(region, task("dup"));
      await bus.publishTask(region, { ...task("dup"), url: "https://example.com/other" });
      await other.publishTask(region, task("dup"));
      await bus.publishTask(region, task("unique"));
      const got = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 4 }));
      await waitFor(() => got.got.length >= 2, "two distinct tasks");
      const markerAt = performance.now();
      await bus.publishTask(region, task("marker"));
      await waitFor(() => got.got.length >= 3 && performance.now() - markerAt > 2 * ACK_WAIT_MS, "marker");
      expect(got.got.map((g) => g.data.taskId).sort()).toEqual(["dup", "marker", "unique"]);
      expect(got.got.find((g) => g.data.taskId === "dup")!.data.url).toBe(task("dup").url);
    });

    test(`${name} - a task published again after the duplicate window is a second stored copy; each copy keeps its number`, async () => {
      await start();
      const got = record<FetchTask>(
        (h) => bus.consumeTasks(region, h, { concurrency: 2 }),
        // The first delivery of each copy is nak'ed: its redelivery carries the same copy.
        (d) => (d.deliveryCount === 1 ? d.nak() : d.ack()),
      );
      await bus.publishTask(region, task("twice"));
      await waitFor(() => got.got.length === 2, "the first copy, delivered twice");
      const windowEnds = performance.now() + DUPLICATE_WINDOW_MS;
      await waitFor(() => performance.now() > windowEnds, "the duplicate window to pass", DUPLICATE_WINDOW_MS + 1_000);
      await other.publishTask(region, task("twice"));
      await waitFor(() => got.got.length === 4, "the second copy, delivered twice");
      const copies = got.got.map((g) => [g.data.taskId, g.deliveryCount, g.copy]);
      const [first, second] = [got.got[0]!.copy, got.got[2]!.copy];
      expect(second).not.toBe(first);
      expect(copies).toEqual([
        ["twice", 1, first],
        ["twice", 2, first],
        ["twice", 1, second],
        ["twice", 2, second],
      ]);
    });

    test(`${name} - a re-offer stores the task again as a new copy within the window, once per re-offer number`, async () => {
      await start();
      await bus.publishTask(region, task("offered"));
      await bus.publishTask(region, task("offered"), { reoffer: 1 });
      await other.publishTask(region, task("offered"), { reoffer: 1 });
      await bus.publishTask(region, task("offered"), { reoffer: 2 });
      await bus.publishTask(region, task("offered"));
      const got = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 4 }));
      await waitFor(() => got.got.length >= 3, "the original and two re-offers");
      const markerAt = performance.now();
      await bus.publishTask(region, task("marker"));
      await waitFor(() => got.got.length >= 4 && performance.now() - markerAt > 2 * ACK_WAIT_MS, "marker");
      const offered = got.got.filter((g) => g.data.taskId === "offered");
      expect(offered).toHaveLength(3);
      expect(new Set(offered.map((g) => g.copy)).size).toBe(3);
      expect(offered.every((g) => g.deliveryCount === 1)).toBe(true);
    });

    test(`${name} - a task sent to a fetch node's inbox reaches only that inbox's subscribers; one sent to none, only the shared queue's`, async () => {
      await start();
      const shared = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 2 }));
      const a = record<FetchTask>((h) => other.consumeTasks(region, h, { concurrency: 2, inbox: "node-a" }));
      const b = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 2, inbox: "node-b" }));
      await Promise.all([
        bus.publishTask(region, task("to-a"), { to: "node-a" }),
        other.publishTask(region, task("to-b"), { to: "node-b" }),
        bus.publishTask(region, task("to-a-2"), { to: "node-a" }),
        bus.publishTask(region, task("to-nobody")),
      ]);
      await waitFor(() => a.got.length >= 2 && b.got.length >= 1 && shared.got.length >= 1, "every queue delivered");
      // Two ack waits: a task that went to the wrong queue, or twice, would have come by then.
      const at = performance.now();
      await waitFor(() => performance.now() - at > 2 * ACK_WAIT_MS, "two ack waits");
      expect(a.got.map((g) => g.data.taskId).sort()).toEqual(["to-a", "to-a-2"]);
      expect(b.got.map((g) => g.data.taskId)).toEqual(["to-b"]);
      expect(shared.got.map((g) => g.data.taskId)).toEqual(["to-nobody"]);
      await expect(bus.publishTask(region, task("bad"), { to: "No Such.Node" })).rejects.toThrow(/node id/);
    });

    test(`${name} - tasks sent to an inbox nobody pulls wait there, are listed, and go to whoever pulls it later, as the same copies`, async () => {
      await start();
      await bus.publishTask(region, task("waits-1"), { to: "gone-node" });
      await bus.publishTask(region, task("waits-2"), { to: "gone-node" });
      expect(await other.taskInboxes(region)).toEqual([{ node: "gone-node", waiting: 2, unacked: 0 }]);
      let release!: () => void;
      const stuck = new Promise<void>((r) => (release = r));
      // The inbox's own node takes them and hangs on them (a node killed mid-task); its heir pulls the same inbox.
      const dying = record<FetchTask>(
        (h) => bus.consumeTasks(region, h, { concurrency: 1, inbox: "gone-node" }),
        () => stuck,
      );
      await waitFor(() => dying.got.length === 1, "the first task at the inbox's node");
      const heir = record<FetchTask>((h) => other.consumeTasks(region, h, { concurrency: 2, inbox: "gone-node" }));
      await waitFor(() => heir.got.length === 2, "both tasks at the heir (the one taken after the ack wait)", 5_000);
      const taken = dying.got[0]!;
      const again = heir.got.find((g) => g.data.taskId === taken.data.taskId)!;
      // The one the dying node held comes back as a redelivery of the same stored copy, not as a new copy.
      expect(again).toMatchObject({ copy: taken.copy, deliveryCount: 2 });
      expect(again.at - taken.at).toBeGreaterThanOrEqual(ACK_WAIT_MS - 50);
      release();
    });

    test(`${name} - an inbox is removed only when it holds no task, and a task sent to it after is not lost`, async () => {
      await start();
      // A node makes its inbox at its start: listed, empty.
      await other.ensureTaskInbox(region, "leaving");
      await other.ensureTaskInbox(region, "leaving");
      expect(await bus.taskInboxes(region)).toEqual([{ node: "leaving", waiting: 0, unacked: 0 }]);
      await bus.publishTask(region, task("held"), { to: "leaving" });
      expect(await bus.removeTaskInbox(region, "leaving")).toBe(false);
      const got = record<FetchTask>((h) => other.consumeTasks(region, h, { concurrency: 1, inbox: "leaving" }));
      await waitFor(() => got.got.length === 1, "the task");
      await waitFor(() => got.got.length === 1 && performance.now() > got.got[0]!.at + 100, "its ack");
      await got.sub.stop();
      expect(await bus.removeTaskInbox(region, "leaving")).toBe(true);
      expect((await bus.taskInboxes(region)).map((i) => i.node)).toEqual([]);
      // Sent after the removal (a frontier node that judged late): listed, and delivered to the next subscriber.
      await other.publishTask(region, task("late"), { to: "leaving" });
      expect(await bus.taskInboxes(region)).toEqual([{ node: "leaving", waiting: 1, unacked: 0 }]);
      const later = record<FetchTask>((h) => bus.consumeTasks(region, h, { concurrency: 1, inbox: "leaving" }));
      await waitFor(() => later.got.length === 1, "the late task");
      expect(later.got[0]!.data.taskId).toBe("late");
    });

    test(`${name} - partitions are isolated: urls and results of p1 never reach p2's consumers`, async () => {
      await start();
      const p1 = record<DiscoveredUrl[]>((h) => bus.consumeUrls(region, 1, h));
      const p2 = record<DiscoveredUrl[]>((h) => bus.consumeUrls(region, 2, h));
      const r1 = record<FetchResult>((h) => bus.consumeResults(region, 1, h));
      const r2 = record<FetchResult>((h) => bus.consumeResults(region, 2, h));
      for (let i = 0; i < 5; i++) await bus.publishUrls(region, 1, links(1, `only-p1-${i}`));
      await bus.publishResult(region, result("only-p1", 1));
      await bus.publishUrls(region, 2, links(2, "p2"));
      await bus.publishResult(region, result("p2", 2));
      await waitFor(() => p1.got.length === 5 && p2.got.length === 1 && r1.got.length === 1 && r2.got.length === 1, "all delivered");
      expect(p2.got.map((g) => g.data[0]!.url)).toEqual([links(2, "p2")[0]!.url]);
      expect(r2.got.map((g) => g.data.taskId)).toEqual(["p2"]);
      expect(p1.got.every((g) => g.data[0]!.url.includes("only-p1"))).toBe(true);
    });

    test(`${name} - after stop(), a new subscriber gets the messages left unacked`, async () => {
      await start();
      const first = record<DiscoveredUrl[]>(
        (h) => bus.consumeUrls(region, 3, h),
        () => undefined,
      );
      await bus.publishUrls(region, 3, links(3, "a"));
      await bus.publishUrls(region, 3, links(3, "b"));
      await waitFor(() => first.got.length >= 1, "first delivery");
      await first.sub.stop();
      const countAtStop = first.got.length;
      const second = record<DiscoveredUrl[]>((h) => other.consumeUrls(region, 3, h));
      await waitFor(() => new Set(second.got.map((g) => g.data[0]!.url)).size === 2, "both messages, redelivered", 5_000);
      expect(first.got.length).toBe(countAtStop); // nothing reached a stopped subscriber
    });

    test(`${name} - stop() waits for the handlers already running`, async () => {
      await start();
      let finished = false;
      const got = record<FetchTask>(
        (h) => bus.consumeTasks(region, h, { concurrency: 1 }),
        async (d) => {
          await new Promise((r) => setTimeout(r, 100));
          finished = true;
          await d.ack();
        },
      );
      await bus.publishTask(region, task("in-flight"));
      await waitFor(() => got.got.length === 1, "delivery");
      await got.sub.stop();
      expect(finished).toBe(true);
    });

    test(`${name} - concurrency bounds the task handlers running at once`, async () => {
      await start();
      let running = 0;
      let peak = 0;
      const done = new Set<string>();
      record<FetchTask>(
        (h) => bus.consumeTasks(region, h, { concurrency: 3 }),
        async (d) => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 20));
          running--;
          done.add(d.data.taskId);
          await d.ack();
        },
      );
      await Promise.all(Array.from({ length: 12 }, (_, i) => bus.publishTask(region, task(`c${i}`))));
      await waitFor(() => done.size === 12, "12 tasks handled");
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
    });
  });
}

// --- fixtures -------------------------------------------------------------------------------------------

let nats: NatsServer | undefined;
const connections: NatsConnection[] = [];
const current: MessageBus[] = [];

messageBusContract("MemoryBus", {
  async fresh() {
    const bus = new MemoryBus({
      ackWaitMs: ACK_WAIT_MS,
      fetchAckWaitMs: ACK_WAIT_MS,
      duplicateWindowMs: DUPLICATE_WINDOW_MS,
      viaCodec: true,
      onError: quietHandlerErrors,
    });
    current.push(bus);
    return { bus, other: bus };
  },
  async cleanup() {
    await Promise.all(current.splice(0).map((b) => b.close()));
  },
});

messageBusContract("JetStreamBus", {
  async setup() {
    nats = await startNats({ jetstream: true });
  },
  async teardown() {
    await nats?.stop();
  },
  async fresh() {
    const options = {
      ackWaitMs: ACK_WAIT_MS,
      fetchAckWaitMs: ACK_WAIT_MS,
      duplicateWindowMs: DUPLICATE_WINDOW_MS,
      taskFetchExpiresMs: 1_000,
      onError: quietHandlerErrors,
    };
    const [a, b] = await Promise.all([connectNats(nats!.url, "contract-a"), connectNats(nats!.url, "contract-b")]);
    connections.push(a, b);
    const bus = new JetStreamBus(a, options);
    const other = new JetStreamBus(b, options);
    current.push(bus, other);
    return { bus, other };
  },
  async cleanup() {
    await Promise.all(current.splice(0).map((b) => b.close()));
    await Promise.all(connections.splice(0).map((c) => c.close()));
  },
});

// --- helpers --------------------------------------------------------------------------------------------

/** The handler failures some tests provoke on purpose are expected; anything else is printed. */
function quietHandlerErrors(err: unknown, where: string): void {
  if (err instanceof Error && err.message.includes("expected in this test")) return;
  console.error(where, err);
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function task(taskId: string): FetchTask {
  return {
    taskId,
    kind: "page",
    url: `https://example.com/${taskId}`,
    host: "example.com",
    partition: 1,
    depth: 2,
    redirectHops: 0,
    etag: '"e"',
    hostGapMs: 1000,
    issuedAt: 1_732_900_000_000,
  };
}

function result(taskId: string, partition: number): FetchResult {
  return {
    taskId,
    kind: "response",
    taskKind: "page",
    url: `https://example.com/${taskId}`,
    host: "example.com",
    partition,
    status: 200,
    startedAt: 1_732_900_000_000,
    endedAt: 1_732_900_000_250,
    fingerprint: "ab".repeat(32),
    changed: false,
    linksFound: 3,
    bytes: 25_000,
  };
}

function links(partition: number, tag = "x"): DiscoveredUrl[] {
  return [
    {
      url: `https://p${partition}.example/${tag}`,
      host: `p${partition}.example`,
      depth: 1,
      sourceUrl: "https://example.com/",
      redirectHops: 0,
    },
    { url: `https://p${partition}.example/${tag}/2`, host: `p${partition}.example`, depth: 1, redirectHops: 0, isSeed: true },
  ];
}
