/**
 * The dispatcher when NATS refuses publishes: a task whose publish fails stays in flight and is published
 * again under the same task id (the stream keeps one copy per id within its duplicate window), so its
 * host never gets a second task while the first may exist, and the crawl goes on as soon as the bus takes
 * publishes again. Only after failing for `republishForMs` is the task given back to its host's queue.
 * When the bus says deliveries may have been lost (a reconnect), every task stored and unanswered is
 * re-offered as a new copy; tasks answered meanwhile, and tasks still waiting to be published again, are not.
 */
import { afterEach, expect, test } from "bun:test";
import type { FetchTask } from "../../core/model/index.ts";
import type { MessageBus } from "../../core/ports/index.ts";
import { discovered, publishUrls, ringOf, TestBed, waitFor, writeRing } from "./testing.ts";

const P = 4;
let bed: TestBed;

afterEach(async () => {
  await bed.close();
});

type Flaky = MessageBus & {
  down: boolean;
  attempts: FetchTask[];
  /** Every re-offer attempted: task id and re-offer number. */
  reoffers: Array<[string, number]>;
  /** Says, as a reconnect would, that deliveries may have been lost. */
  lost(): void;
};

/** The bed's bus, whose task publishes fail while `down`; records every attempt; `lost()` acts out a reconnect. */
function flaky(bus: MessageBus, down = true): Flaky {
  const wrapper = Object.create(bus) as Flaky;
  const watchers = new Set<(why: string) => void>();
  wrapper.down = down;
  wrapper.attempts = [];
  wrapper.reoffers = [];
  wrapper.publishTask = async (region, task, route) => {
    if (route?.reoffer) wrapper.reoffers.push([task.taskId, route.reoffer]);
    else wrapper.attempts.push(task);
    if (wrapper.down) throw new Error("NATS is disconnected (reconnecting): the task was not sent");
    return bus.publishTask(region, task, route);
  };
  wrapper.onTasksMayBeLost = (_region, f) => {
    watchers.add(f);
    return () => watchers.delete(f);
  };
  wrapper.lost = () => {
    for (const f of watchers) f("the test's reconnect");
  };
  return wrapper;
}

/** Holds each task's answer until the test releases its id (every copy of it), or every task from `openAll` on. */
function gate(): { hold: (task: FetchTask) => Promise<void>; release: (taskId: string) => void; openAll: () => void } {
  let open = false;
  const opened = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  const waitFor = (taskId: string) => {
    let w = waits.get(taskId);
    if (!w) {
      w = new Promise<void>((resolve) => opened.set(taskId, resolve));
      waits.set(taskId, w);
    }
    return w;
  };
  return {
    hold: (task) => (open ? Promise.resolve() : waitFor(task.taskId)),
    release: (taskId) => {
      void waitFor(taskId);
      opened.get(taskId)!();
    },
    openAll: () => {
      open = true;
      for (const f of opened.values()) f();
    },
  };
}

test("dispatcher - a task whose publish fails stays in flight and is published again with the same id once the bus takes it", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const bus = flaky(bed.bus);
  const node = await bed.node("n1", { bus });
  const fetcher = bed.fetcher();
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/", "http://h1.test/"], true));
  await waitFor(() => bus.attempts.length >= 8, "several publish attempts while the bus refuses them");
  expect(fetcher.tasks).toEqual([]);
  // Two hosts, one robots.txt task each, attempted again and again under the same two ids.
  expect(new Set(bus.attempts.map((t) => t.taskId)).size).toBe(2);
  expect(node.frontier.inFlight).toBe(2);
  expect(node.frontier.counters.get("frontier.abandoned")).toBe(0);

  bus.down = false;
  await waitFor(() => fetcher.pages().length === 2 && node.frontier.inFlight === 0, "both home pages to be fetched");
  expect(fetcher.pages().sort()).toEqual(["http://h0.test/", "http://h1.test/"]);
  // Each task reached the fetcher once.
  const ids = fetcher.tasks.map((t) => t.taskId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(node.frontier.counters.get("node.tasks.republished")).toBe(2);
});

test("dispatcher - a task that cannot be published for republishForMs is given back to its host's queue and dispatched anew later", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const bus = flaky(bed.bus);
  const node = await bed.node("n1", { bus, republishForMs: 300 });
  const fetcher = bed.fetcher();
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/"], true));
  await waitFor(() => node.frontier.counters.get("node.tasks.publish-given-back") === 1, "the task to be given back");
  expect(node.frontier.counters.get("frontier.abandoned")).toBe(1);
  bus.down = false;
  await waitFor(() => fetcher.pages().length === 1, "the home page to be fetched");
  expect(new Set(bus.attempts.map((t) => t.taskId)).size).toBeGreaterThan(1);
});

test("dispatcher - after a reconnect every task out and unanswered is re-offered as a new copy, those answered meanwhile are not", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const bus = flaky(bed.bus, false);
  const node = await bed.node("n1", { bus });
  const g = gate();
  const fetcher = bed.fetcher({ hold: g.hold });
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/", "http://h1.test/", "http://h2.test/"], true));
  await waitFor(() => fetcher.tasks.length === 3, "the three robots.txt tasks to reach the fetcher");
  // h0's robots.txt answered: its page task goes out, held like the other two.
  const robots0 = fetcher.tasks.find((t) => t.host === "h0.test")!;
  g.release(robots0.taskId);
  await waitFor(() => fetcher.pages().length === 1, "h0's home page task to reach the fetcher");
  const out = fetcher.tasks.filter((t) => t.taskId !== robots0.taskId).map((t) => t.taskId);
  expect(node.frontier.inFlight).toBe(3);

  bus.lost();
  await waitFor(() => node.frontier.counters.get("node.tasks.reoffered") === 3, "the three tasks out to be re-offered");
  expect(bus.reoffers.map(([id]) => id).sort()).toEqual([...out].sort());
  expect(bus.reoffers.every(([, n]) => n === 1)).toBe(true);
  // Each is a second stored copy: the fetcher gets it (a fetch node's claims would drop one of the two).
  await waitFor(() => fetcher.tasks.length === 7, "the re-offered copies to reach the fetcher");
  expect(
    fetcher.tasks
      .slice(4)
      .map((t) => t.taskId)
      .sort(),
  ).toEqual([...out].sort());

  // Still unanswered at the next reconnect: re-offered again, under a new number (a new copy again).
  bus.lost();
  await waitFor(() => node.frontier.counters.get("node.tasks.reoffered") === 6, "the second re-offer");
  expect(bus.reoffers.slice(3).every(([, n]) => n === 2)).toBe(true);

  // Everything answered: a reconnect now re-offers nothing.
  g.openAll();
  await waitFor(() => node.frontier.inFlight === 0 && new Set(fetcher.pages()).size === 3, "every home page to be fetched");
  const before = bus.reoffers.length;
  bus.lost();
  // A re-offer would go out before the next new task: once a new host's task is out, none went.
  await publishUrls(bed.bus, P, discovered(["http://h3.test/"], true));
  await waitFor(() => fetcher.tasks.some((t) => t.host === "h3.test"), "h3's robots.txt task to reach the fetcher");
  expect(bus.reoffers.length).toBe(before);
  expect(node.frontier.counters.get("node.tasks.reoffered")).toBe(6);
});

test("dispatcher - a task whose publish waits to be repeated is not also re-offered after a reconnect", async () => {
  bed = new TestBed(P);
  await bed.ensureRegion();
  await writeRing(
    bed.state,
    ringOf(P, () => "n1"),
  );
  const bus = flaky(bed.bus);
  const node = await bed.node("n1", { bus });
  const fetcher = bed.fetcher();
  await waitFor(() => node.serving.length === P, "n1 to serve every partition");
  await publishUrls(bed.bus, P, discovered(["http://h0.test/", "http://h1.test/"], true));
  await waitFor(() => bus.attempts.length >= 4, "publishes failing while the bus is down");
  bus.down = false;
  bus.lost();
  await waitFor(() => fetcher.pages().length === 2 && node.frontier.inFlight === 0, "both home pages to be fetched");
  expect(bus.reoffers).toEqual([]);
  const ids = fetcher.tasks.map((t) => t.taskId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(node.frontier.counters.get("node.tasks.reoffered")).toBe(0);
});
