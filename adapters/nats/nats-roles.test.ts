/**
 * The NATS adapters under the cluster's permissions, on a real nats-server with TLS and one user per role
 * (core/cluster `natsPermissions`, rendered by `renderNatsAccounts`): each role does its whole job over its
 * own user (set up streams, publish, pull and ack, the cluster-state bucket), and each is refused what it has
 * no business doing, with nothing stored. Wrong credentials are refused at connect time with a message
 * that says what to check.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { streams, subjects } from "../../core/cluster/index.ts";
import type { NodeRecord } from "../../core/cluster/index.ts";
import type { Delivery } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { encodeDiscoveredLinks } from "../../proto/codec/index.ts";
import { makePki, startSecureNats, type Pki, type SecureNats } from "../../tests/support/secure-servers.ts";
import { connectNats, JetStreamBus, NatsKvClusterState, type NatsAccess, type NatsConnection } from "./index.ts";

const R1 = "r1";
const R2 = "r2";
const PARTITIONS = 4;

let pki: Pki;
let nats: SecureNats;
let ca: string;
const conns: NatsConnection[] = [];
const buses: JetStreamBus[] = [];

beforeAll(async () => {
  pki = await makePki();
  nats = await startSecureNats({ pki, region: R1, regions: [R1, R2] });
  ca = readFileSync(pki.caFile, "utf8");
}, 60_000);
afterAll(async () => {
  await Promise.all(buses.map((b) => b.close()));
  await Promise.all(conns.map((c) => c.close()));
  await nats?.stop();
  pki?.remove();
});

const access = (role: "coordinator" | "frontier" | "fetch"): NatsAccess => ({ user: role, password: nats.passwords[role], caPem: ca });

async function as(role: "coordinator" | "frontier" | "fetch") {
  const nc = await connectNats(nats.url, `${role} test`, {}, access(role));
  conns.push(nc);
  const bus = new JetStreamBus(nc, { onError: () => {}, publishTimeoutMs: 3_000 });
  buses.push(bus);
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  return { nc, bus, state };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

function record(id: string, role: NodeRecord["role"]): NodeRecord {
  return {
    id,
    role,
    region: R1,
    runtime: "bun",
    status: "active",
    grpcAddress: "",
    httpAddress: "",
    startedAt: 1,
    heartbeatAt: 2,
    partitions: [],
    counters: {},
    gauges: {},
  };
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("nats roles - each role does its whole job over its own user and TLS", async () => {
  const coordinator = await as("coordinator");
  const frontier = await as("frontier");
  const fetcher = await as("fetch");
  for (const region of [R1, R2]) await coordinator.bus.ensureRegion(region, PARTITIONS);
  await frontier.bus.ensureRegion(R1, PARTITIONS);
  await fetcher.bus.ensureRegion(R1, PARTITIONS);

  // A seed, admitted by the frontier; a task, fetched; a result and links to the other region.
  await coordinator.bus.publishUrls(R1, 2, [url("seed")]);
  const admitted: DiscoveredUrl[][] = [];
  const urls = frontier.bus.consumeUrls(R1, 2, async (d: Delivery<DiscoveredUrl[]>) => {
    admitted.push(d.data);
    await d.ack();
  });
  await waitFor(() => admitted.length === 1, "the seed at the frontier");
  await urls.stop();
  await frontier.bus.publishTask(R1, task("t1"));
  const fetched: FetchTask[] = [];
  const tasks = fetcher.bus.consumeTasks(
    R1,
    async (d) => {
      fetched.push(d.data);
      await fetcher.bus.publishUrls(R2, 1, [url("link")]);
      await fetcher.bus.publishResult(R1, result("t1", 2));
      await d.ack();
    },
    { concurrency: 1 },
  );
  await waitFor(() => fetched.length === 1, "the task at the fetch node");
  await tasks.stop();
  // Host affinity: a task to a fetch node's inbox, pulled by that node (or its heir), which lists the
  // inboxes and removes an empty one, all over the fetch user.
  await frontier.bus.publishTask(R1, task("t-inbox"), { to: "fetch-1" });
  const inbox = fetcher.bus.consumeTasks(
    R1,
    async (d) => {
      fetched.push(d.data);
      await d.ack();
    },
    { concurrency: 1, inbox: "fetch-1" },
  );
  await waitFor(() => fetched.length === 2, "the inbox's task at the fetch node");
  await inbox.stop();
  expect(await fetcher.bus.taskInboxes(R1)).toEqual([{ node: "fetch-1", waiting: 0, unacked: 0 }]);
  expect(await fetcher.bus.removeTaskInbox(R1, "fetch-1")).toBe(true);
  const results: FetchResult[] = [];
  const sub = frontier.bus.consumeResults(R1, 2, async (d) => {
    results.push(d.data);
    await d.ack();
  });
  await waitFor(() => results.length === 1, "the result at the frontier");
  await sub.stop();

  // The cluster-state bucket: records of every role, the ring by the coordinator and by a frontier node, the lease.
  await fetcher.state.putNode(record("fetch-1", "fetcher"));
  await frontier.state.putNode(record("frontier-1", "frontier"));
  expect((await coordinator.state.listNodes()).map((n) => n.id).sort()).toEqual(["fetch-1", "frontier-1"]);
  // (Its own lease name, so the other tests find the coordinator's lease free to try.)
  expect(await coordinator.state.acquireLease("first-test", "c1", 10_000, Date.now())).toBeGreaterThan(0);
  const revision = await coordinator.state.casRing({ version: 1, partitions: PARTITIONS, regions: {} } as never, 0);
  expect(revision).toBeGreaterThan(0);
  const got = await frontier.state.getRing();
  expect(await frontier.state.casRing(got!.ring, got!.revision)).toBeGreaterThan(revision!);
}, 60_000);

test("nats roles - a fetch node parks links for a region in its forward stream and moves them on over its own user", async () => {
  const coordinator = await as("coordinator");
  for (const region of [R1, R2]) await coordinator.bus.ensureRegion(region, PARTITIONS);
  const nc = await connectNats(nats.url, "fetch forwarder test", {}, access("fetch"));
  conns.push(nc);
  const forwarder = new JetStreamBus(nc, { onError: () => {}, publishTimeoutMs: 3_000, localRegion: R1 });
  buses.push(forwarder);
  const jsm = await jetstreamManager(coordinator.nc);
  const before = (await jsm.streams.info(streams.urls(R2))).state.messages;
  await jetstream(nc).publish(subjects.forward(R1, R2, 3), encodeDiscoveredLinks(3, [url("parked")]));
  const sub = forwarder.forwardLinks({ concurrency: 1 });
  const deadline = Date.now() + 10_000;
  while ((await jsm.streams.info(streams.urls(R2))).state.messages === before && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await sub.stop();
  expect((await jsm.streams.info(streams.urls(R2))).state.messages).toBe(before + 1);
}, 60_000);

test("nats roles - a fetch node cannot hand out fetch tasks, answer for another region, take the lease or rewrite the ring", async () => {
  const coordinator = await as("coordinator");
  const fetcher = await as("fetch");
  await coordinator.bus.ensureRegion(R1, PARTITIONS);
  await coordinator.bus.ensureRegion(R2, PARTITIONS);
  const jsm = await jetstreamManager(coordinator.nc);
  const before = (await jsm.streams.info(streams.fetch(R1))).state.messages;

  const refusals = {
    "task to crawl.fetch.r1": await failure(fetcher.bus.publishTask(R1, task("forged"))),
    "result to crawl.results.r2": await failure(fetcher.bus.publishResult(R2, result("forged", 1))),
    "the coordinator lease": await failure(fetcher.state.acquireLease("coordinator", "fetch-1", 10_000, Date.now())),
    "the ring": await failure(fetcher.state.casRing({ version: 1, partitions: PARTITIONS, regions: {} } as never, 0)),
    "streams of another region": await failure(fetcher.bus.ensureRegion(R2, PARTITIONS)),
  };
  expect(Object.fromEntries(Object.entries(refusals).map(([what, e]) => [what, e?.message]))).toEqual({
    "task to crawl.fetch.r1": 'Permissions Violation for Publish to "crawl.fetch.r1"',
    "result to crawl.results.r2": 'Permissions Violation for Publish to "crawl.results.r2.1"',
    "the coordinator lease": 'Permissions Violation for Publish to "$KV.crawl-cluster.lease.coordinator"',
    "the ring": 'Permissions Violation for Publish to "$KV.crawl-ring.ring"',
    "streams of another region": 'Permissions Violation for Publish to "$JS.API.STREAM.INFO.CRAWL_URLS_R2"',
  });
  expect((await jsm.streams.info(streams.fetch(R1))).state.messages).toBe(before);
  expect((await jsm.streams.info(streams.results(R2))).state.messages).toBe(0);
}, 60_000);

test("nats roles - a frontier node cannot take the coordinator's lease nor publish another region's tasks", async () => {
  const coordinator = await as("coordinator");
  const frontier = await as("frontier");
  await coordinator.bus.ensureRegion(R2, PARTITIONS);
  const jsm = await jetstreamManager(coordinator.nc);
  expect((await failure(frontier.state.acquireLease("coordinator", "frontier-1", 10_000, Date.now())))?.message).toBe(
    'Permissions Violation for Publish to "$KV.crawl-cluster.lease.coordinator"',
  );
  expect((await failure(frontier.bus.publishTask(R2, task("elsewhere"))))?.message).toBe(
    'Permissions Violation for Publish to "crawl.fetch.r2"',
  );
  expect((await jsm.streams.info(streams.fetch(R2))).state.messages).toBe(0);
}, 60_000);

test("nats roles - wrong credentials are refused at connect, saying what to check", async () => {
  const other = await makePki();
  try {
    const attempts: Record<string, NatsAccess> = {
      "wrong password": { user: "fetch", password: "not-the-password", caPem: ca },
      "no user": { caPem: ca },
      "another role's password": { user: "frontier", password: nats.passwords.fetch, caPem: ca },
      "no CA": { user: "fetch", password: nats.passwords.fetch },
      "another CA": { user: "fetch", password: nats.passwords.fetch, caPem: readFileSync(other.caFile, "utf8") },
    };
    const messages: Record<string, string | undefined> = {};
    for (const [what, a] of Object.entries(attempts)) {
      messages[what] = (await failure(connectNats(nats.url, what, { maxReconnectAttempts: 0 }, a)))?.message;
    }
    expect(messages).toEqual({
      "wrong password":
        'NATS refused user "fetch" (Authorization Violation): check the user and password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD)',
      "no user": "NATS wants a user and password (Authorization Violation): give CRAWL_NATS_USER and CRAWL_NATS_PASSWORD",
      "another role's password":
        'NATS refused user "frontier" (Authorization Violation): check the user and password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD)',
      "no CA": expect.stringMatching(/^NATS server's TLS certificate was not accepted \(.+\): check CRAWL_NATS_TLS_CA_FILE/),
      "another CA": expect.stringMatching(/^NATS server's TLS certificate was not accepted \(.+\): check CRAWL_NATS_TLS_CA_FILE/),
    });
  } finally {
    other.remove();
  }
}, 60_000);

function url(tag: string): DiscoveredUrl {
  return { url: `https://${tag}.example/`, host: `${tag}.example`, depth: 0, redirectHops: 0, isSeed: true };
}

function task(taskId: string): FetchTask {
  return {
    taskId,
    kind: "page",
    url: `https://example.com/${taskId}`,
    host: "example.com",
    partition: 2,
    depth: 1,
    redirectHops: 0,
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
    linksFound: 0,
    bytes: 100,
  };
}
