/**
 * Where the JetStream bus puts a region's streams. In a fleet each region is a NATS cluster named after it,
 * joined to the others by gateways, and the coordinator (connected to its own region's servers) sets up
 * every region's streams: each must land in its own region's cluster, or a region's work would travel
 * through another region and stop when that one is cut off. A standalone server, as in `cluster up` with
 * one region, must keep taking the streams wherever JetStream puts them.
 */
import { afterEach, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { streams } from "../../core/cluster/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { startNats, startNatsSupercluster, type Supercluster } from "../../tests/support/nats.ts";
import { connectNats, JetStreamBus, type NatsConnection } from "./index.ts";

let sc: Supercluster | undefined;
const connections: NatsConnection[] = [];

/** A fresh two-region supercluster per test: where a stream lands depends on who created it first. */
async function supercluster(): Promise<Supercluster> {
  sc = await startNatsSupercluster(["us", "eu"]);
  return sc;
}
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  await sc?.stop();
  sc = undefined;
});

async function connect(url: string, name: string): Promise<NatsConnection> {
  const nc = await connectNats(url, name);
  connections.push(nc);
  return nc;
}

const regionStreams = (region: string) => [streams.urls(region), streams.fetch(region), streams.results(region)];

test("region placement - a bus given the regions places each region's streams in the cluster named after it, from any region", async () => {
  const sc = await supercluster();
  const nc = await connect(sc.regions["us"]!.url, "coordinator in us");
  const bus = new JetStreamBus(nc, { regions: ["us", "eu"] });
  await bus.ensureRegion("eu", 2);
  await bus.ensureRegion("us", 2);
  const jsm = await jetstreamManager(nc);
  for (const region of ["us", "eu"]) {
    for (const name of regionStreams(region)) {
      expect({ name, cluster: (await jsm.streams.info(name)).cluster?.name }).toEqual({ name, cluster: region });
    }
  }

  // A node of eu, connected to eu, finds its streams set up and works on them; seeds published in us
  // reach it through the gateway.
  const euBus = new JetStreamBus(await connect(sc.regions["eu"]!.url, "frontier in eu"));
  await euBus.ensureRegion("eu", 2);
  let got: DiscoveredUrl[] | undefined;
  const sub = euBus.consumeUrls("eu", 1, async (d) => {
    got = d.data;
    await d.ack();
  });
  await bus.publishUrls("eu", 1, [{ url: "https://example.de/", host: "example.de", depth: 0, redirectHops: 0 }]);
  const deadline = Date.now() + 20_000;
  while (!got && Date.now() < deadline) await Bun.sleep(25);
  expect(got?.[0]?.url).toBe("https://example.de/");
  await sub.stop();
  await Promise.all([bus.close(), euBus.close()]);
}, 60_000);

test("region placement - a node's bus places its own region's streams in its own cluster without being told the regions", async () => {
  const sc = await supercluster();
  const nc = await connect(sc.regions["eu"]!.url, "fetch node in eu");
  const bus = new JetStreamBus(nc);
  await bus.ensureRegion("eu2", 1); // no cluster is named eu2: not placed, and still created
  await bus.ensureRegion("eu", 1);
  const jsm = await jetstreamManager(nc);
  expect((await jsm.streams.info(streams.fetch("eu"))).cluster?.name).toBe("eu");
  expect((await jsm.streams.info(streams.fetch("eu2"))).cluster?.name).toBe("eu");
  await bus.close();
}, 60_000);

test("region placement - on a standalone server the regions change nothing: every region's streams are created", async () => {
  const nats = await startNats({ jetstream: true });
  try {
    const nc = await connectNats(nats.url, "coordinator, one server");
    try {
      const bus = new JetStreamBus(nc, { regions: ["us", "eu"] });
      await bus.ensureRegion("us", 1);
      await bus.ensureRegion("eu", 1);
      const jsm = await jetstreamManager(nc);
      for (const name of [...regionStreams("us"), ...regionStreams("eu")])
        expect((await jsm.streams.info(name)).config.placement).toBeUndefined();
      await bus.close();
    } finally {
      await nc.close();
    }
  } finally {
    await nats.stop();
  }
}, 60_000);
