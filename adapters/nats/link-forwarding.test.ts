/**
 * Links for a region whose servers do not answer: a bus with `localRegion` stores them in its own
 * region's forward stream instead of failing (so the fetch that found them is not failed and done
 * again), and `forwardLinks` delivers them to their region once it answers again. Real servers: a
 * two-region supercluster, one region frozen with SIGSTOP as a server that stops answering.
 */
import { afterEach, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { streams } from "../../core/cluster/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { freeze, thaw } from "../../tests/support/freeze.ts";
import { startNatsSupercluster, type Supercluster } from "../../tests/support/nats.ts";
import { connectNats, JetStreamBus, type NatsConnection } from "./index.ts";

let sc: Supercluster | undefined;
const connections: NatsConnection[] = [];
const buses: JetStreamBus[] = [];
afterEach(async () => {
  await Promise.all(buses.splice(0).map((b) => b.close()));
  await Promise.all(connections.splice(0).map((c) => c.close()));
  await sc?.stop();
  sc = undefined;
});

async function bus(url: string, name: string, opts: ConstructorParameters<typeof JetStreamBus>[1] = {}): Promise<JetStreamBus> {
  const nc = await connectNats(url, name);
  connections.push(nc);
  const b = new JetStreamBus(nc, { onError: () => {}, ...opts });
  buses.push(b);
  return b;
}

const link = (url: string): DiscoveredUrl => ({ url, host: new URL(url).host, depth: 1, redirectHops: 0 });

async function until<T>(read: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test("link forwarding - links for a region that does not answer wait in the local region and reach it once it answers", async () => {
  sc = await startNatsSupercluster(["us", "eu"]);
  const us = sc.regions["us"]!;
  const eu = sc.regions["eu"]!;
  const counters = new Counters();
  const fetcher = await bus(us.url, "fetch node in us", {
    regions: ["us", "eu"],
    localRegion: "us",
    publishTimeoutMs: 1_000,
    unreachableForMs: 3_000,
    ackWaitMs: 2_000,
    counters,
  });
  await fetcher.ensureRegion("us", 2);
  await fetcher.ensureRegion("eu", 2);
  // eu's frontier node: what reaches eu's stream for partition 1. (A publish that timed out may still
  // land once eu answers again, so the same link may come twice: the frontier's seen check is idempotent.)
  const got = new Set<string>();
  const consume = async () =>
    (await bus(eu.url, "frontier node in eu")).consumeUrls("eu", 1, async (d) => {
      for (const u of d.data) got.add(u.url);
      await d.ack();
    });
  const first = await consume();

  // Both regions answer: the link goes straight to eu.
  await fetcher.publishUrls("eu", 1, [link("https://a.example.de/")]);
  await until(() => (got.size === 1 ? true : undefined), "the direct link in eu");

  // eu stops answering: the publishes still resolve, the links wait in us's forward stream.
  await freeze(eu.pid);
  try {
    await fetcher.publishUrls("eu", 1, [link("https://b.example.de/")]);
    await fetcher.publishUrls("eu", 1, [link("https://c.example.de/")]); // straight to the forward stream
    // (No account info check: it needs JetStream's meta leader, which a frozen half of two servers has not.)
    const jsm = await jetstreamManager(connections[0]!, { checkAPI: false });
    expect((await jsm.streams.info(streams.forward("us"))).state.messages).toBe(2);
    expect([...got]).toEqual(["https://a.example.de/"]);
    fetcher.forwardLinks({ concurrency: 2 });
  } finally {
    thaw(eu.pid);
  }
  // eu answers again (its frontier node's pull, frozen with the server, is started anew): the forwarder
  // delivers what waited, and nothing stays behind.
  await first.stop();
  await consume();
  await until(() => (got.size === 3 ? true : undefined), "the forwarded links in eu", 60_000);
  expect([...got].sort()).toEqual(["https://a.example.de/", "https://b.example.de/", "https://c.example.de/"]);
  expect(counters.toJSON()["bus.forwarded"]).toBe(2);
  const jsm = await jetstreamManager(connections[0]!);
  await until(
    async () => ((await jsm.streams.info(streams.forward("us"))).state.messages === 0 ? true : undefined),
    "an empty forward stream",
  );
}, 120_000);

test("link forwarding - without localRegion, or for its own region, a failed publish rejects as before", async () => {
  sc = await startNatsSupercluster(["us", "eu"]);
  const us = sc.regions["us"]!;
  const plain = await bus(us.url, "coordinator in us", { regions: ["us", "eu"], publishTimeoutMs: 1_000 });
  await plain.ensureRegion("us", 1);
  await plain.ensureRegion("eu", 1);
  // eu's URL stream lives on eu's one server, so freezing it leaves nobody to confirm a publish.
  const jsm = await jetstreamManager(connections[0]!, { checkAPI: false });
  const placed = (await jsm.streams.info(streams.urls("eu"))).cluster;
  expect({ cluster: placed?.name, leader: placed?.leader, replicas: placed?.replicas?.length ?? 0 }).toEqual({
    cluster: "eu",
    leader: "eu-1",
    replicas: 0,
  });
  const eu = sc.regions["eu"]!;
  await freeze(eu.pid);
  try {
    await expect(plain.publishUrls("eu", 0, [link("https://x.example.de/")])).rejects.toThrow();
  } finally {
    thaw(eu.pid);
  }
}, 120_000);
