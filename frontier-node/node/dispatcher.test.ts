/**
 * The dispatcher when NATS refuses publishes: a task whose publish fails stays in flight and is published
 * again under the same task id (the stream keeps one copy per id within its duplicate window), so its
 * host never gets a second task while the first may exist, and the crawl goes on as soon as the bus takes
 * publishes again. Only after failing for `republishForMs` is the task given back to its host's queue.
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

/** The bed's bus, whose task publishes fail while `down`; records every attempt. */
function flaky(bus: MessageBus): MessageBus & { down: boolean; attempts: FetchTask[] } {
  const wrapper = Object.create(bus) as MessageBus & { down: boolean; attempts: FetchTask[] };
  wrapper.down = true;
  wrapper.attempts = [];
  wrapper.publishTask = async (region, task) => {
    wrapper.attempts.push(task);
    if (wrapper.down) throw new Error("NATS is disconnected (reconnecting): the task was not sent");
    return bus.publishTask(region, task);
  };
  return wrapper;
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
