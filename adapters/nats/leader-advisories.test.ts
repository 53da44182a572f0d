/**
 * LeaderAdvisories on a real nats-server: the advisory subjects are what JetStream publishes when a
 * consumer elects a leader; published here by hand (a single server elects no leaders), so each watcher is
 * seen to get exactly the advisories of its consumer, or of any consumer of its stream.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startNats, type NatsServer } from "../../tests/support/nats.ts";
import { connectNats, type NatsConnection } from "./index.ts";
import { LeaderAdvisories } from "./leader-advisories.ts";

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNats({ jetstream: true });
  nc = await connectNats(nats.url, "leader-advisories-test");
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

test("leader advisories - a watch of any consumer of a stream hears every consumer of that stream, and only of it", async () => {
  const advisories = new LeaderAdvisories(nc, () => {});
  const any: string[] = [];
  const one: string[] = [];
  advisories.watchAnyConsumer("CRAWL_FETCH_R1", () => any.push("any"));
  advisories.watch("CRAWL_FETCH_R1", "fetchers", () => one.push("fetchers"));
  await nc.flush();
  const elect = (stream: string, consumer: string) => nc.publish(`$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${stream}.${consumer}`, "{}");
  elect("CRAWL_FETCH_R1", "inbox-fetch-1");
  elect("CRAWL_FETCH_R1", "fetchers");
  elect("CRAWL_FETCH_R2", "inbox-fetch-1");
  elect("CRAWL_URLS_R1", "urls-0");
  await nc.flush();
  const deadline = Date.now() + 2_000;
  while (any.length < 2 && Date.now() < deadline) await Bun.sleep(10);
  await Bun.sleep(100); // the two that must not come would have by now
  expect(any).toEqual(["any", "any"]);
  expect(one).toEqual(["fetchers"]);
  advisories.stop();
});
