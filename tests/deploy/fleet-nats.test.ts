/**
 * The fleet module's NATS configuration, started for real: a two-region fleet (a 3-server cluster in
 * us-east-1, one server in eu-west-1) rendered onto 127.0.0.1, each server run with its rendered argv,
 * configuration file and the passwords its rendered load-secrets wrote. The servers must form their
 * clusters, join by gateways and elect a JetStream leader; then each role's NATS user does that role's
 * real work through the project's own adapters (cluster state, region streams, tasks, results, links), and
 * is refused what another role does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, JetStreamBus, NatsKvClusterState, type NatsConnection } from "../../adapters/nats/index.ts";
import { natsServerBinary } from "../support/nats.ts";
import { loopbackOverrides, nodeIds, provisionMachine, startProcess, type RunningProcess } from "./support/loopback-fleet.ts";
import { renderFleet, type FleetOutput } from "./support/terraform.ts";

const PARTITIONS = 4;
const REGIONS = { "us-east-1": { nats: 3, frontier: 1, fetch: 1 }, "eu-west-1": { nats: 1, frontier: 1, fetch: 1 } };
const SECRETS = {
  admin_token: "test/admin-token",
  redis_password: "test/redis",
  nats_coordinator_password: "test/nats-coordinator",
  nats_frontier_password: "test/nats-frontier",
  nats_fetch_password: "test/nats-fetch",
  nats_system_password: "test/nats-system",
};
const VALUES: Record<string, string> = Object.fromEntries(
  Object.values(SECRETS).map((name) => [name, `${name.replace(/\W/g, "-")}-${crypto.randomUUID()}`]),
);

let root: string;
let fleet: FleetOutput;
const servers: RunningProcess[] = [];
const connections: NatsConnection[] = [];
const buses: JetStreamBus[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fleet-nats-"));
  const ids = nodeIds(1, REGIONS);
  fleet = renderFleet({
    fleet: {
      name: "test",
      crawler_version: "test",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: "us-east-1",
      control_region: "us-east-1",
      coordinators: 1,
      partitions: PARTITIONS,
      regions: { "us-east-1": { ...REGIONS["us-east-1"] }, "eu-west-1": { ...REGIONS["eu-west-1"], host_suffixes: [".de"] } },
    },
    secrets: SECRETS,
    paths: { nats_server: natsServerBinary() },
    listen_host: "127.0.0.1",
    machine_overrides: await loopbackOverrides(ids, root),
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(buses.map((b) => b.close()));
  await Promise.all(connections.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
  if (root) rmSync(root, { recursive: true, force: true });
});

const natsIds = () => Object.keys(fleet.nats_configs).sort();

test("fleet NATS - every rendered configuration is valid for nats-server 2.9 (nats-server -t)", () => {
  expect(natsIds()).toEqual(["eu-west-1-nats-1", "us-east-1-nats-1", "us-east-1-nats-2", "us-east-1-nats-3"]);
  for (const id of natsIds()) {
    const m = fleet.machines[id]!;
    const env = provisionMachine(m, VALUES);
    const r = spawnSync(m.argv[0]!, [...m.argv.slice(1), "-t"], { encoding: "utf8", env: { ...process.env, ...env } });
    expect({ id, code: r.status, output: `${r.stdout}${r.stderr}` }).toMatchObject({ id, code: 0 });
  }
}, 60_000);

test("fleet NATS - the rendered servers form their clusters, join by gateways and elect a JetStream leader", async () => {
  for (const id of natsIds()) {
    const m = fleet.machines[id]!;
    const env = provisionMachine(m, VALUES);
    servers.push(startProcess(m.argv, { ...m.env, ...env }, m.working_dir));
  }
  await Promise.all(servers.map((s, i) => s.waitFor(/Server is ready/, 20_000, `${natsIds()[i]} ready`)));
  await Promise.all(
    natsIds().map((id, i) => {
      const other = fleet.machines[id]!.region === "us-east-1" ? "eu-west-1" : "us-east-1";
      return servers[i]!.waitFor(
        new RegExp(`Outbound gateway connection to "${other}"[^\\n]*registered`),
        30_000,
        `${id} gateway to ${other}`,
      );
    }),
  );
  // The three us-east-1 servers route to each other.
  for (const i of [1, 2, 3]) expect(servers[i]!.log()).toMatch(/Route connection created/);
  // JetStream answers on every server (the supercluster has one metadata leader), asked as the coordinator.
  const password = provisionMachine(fleet.machines["coordinator-1"]!, VALUES)["CRAWL_NATS_PASSWORD"];
  for (const id of natsIds()) {
    const nc = await connectNats(`nats://127.0.0.1:${fleet.machines[id]!.ports["client"]}`, `probe ${id}`, {
      user: "coordinator",
      pass: password,
    });
    connections.push(nc);
    // checkAPI: false, because the manager's own check asks for the account info once and throws when
    // no metadata leader is elected yet; the loop below asks until one is.
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    const info = await until(
      async () => {
        try {
          return await jsm.getAccountInfo();
        } catch {
          return undefined; // no metadata leader yet
        }
      },
      `JetStream on ${id}`,
      60_000,
    );
    expect(info.limits).toBeDefined();
  }
}, 120_000);

/** Connects as the role user of `machineId`, with the password its load-secrets wrote, to its own region. */
async function connectAs(machineId: string): Promise<NatsConnection> {
  const m = fleet.machines[machineId]!;
  const env = provisionMachine(m, VALUES);
  const nc = await connectNats(m.env["CRAWL_NATS_URL"]!.split(","), machineId, {
    user: m.env["CRAWL_NATS_USER"],
    pass: env["CRAWL_NATS_PASSWORD"],
  });
  connections.push(nc);
  return nc;
}

function bus(nc: NatsConnection): JetStreamBus {
  const b = new JetStreamBus(nc, { taskFetchExpiresMs: 1_000, onError: (error, where) => console.error(`bus error (${where}):`, error) });
  buses.push(b);
  return b;
}

const task = (id: string, host: string, partition: number): FetchTask => ({
  taskId: id,
  kind: "page",
  url: `https://${host}/`,
  host,
  partition,
  depth: 0,
  redirectHops: 0,
  hostGapMs: 1000,
  issuedAt: Date.now(),
});
const result = (t: FetchTask): FetchResult => ({
  taskId: t.taskId,
  kind: "response",
  taskKind: "page",
  url: t.url,
  host: t.host,
  partition: t.partition,
  status: 200,
  startedAt: Date.now() - 5,
  endedAt: Date.now(),
  changed: false,
  linksFound: 1,
  bytes: 100,
});
const link = (url: string): DiscoveredUrl => ({ url, host: new URL(url).host, depth: 1, redirectHops: 0 });

async function until<T>(read: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test("fleet NATS - each role's user does its role's work: seeds, tasks, results and links across regions", async () => {
  const coordinator = await connectAs("coordinator-1");
  const state = await NatsKvClusterState.open(coordinator);
  await state.acquireLease("coordinator", "coordinator-1", 6_000, Date.now());
  const coordinatorBus = bus(coordinator);
  for (const region of Object.keys(REGIONS)) await coordinatorBus.ensureRegion(region, PARTITIONS);
  await coordinatorBus.publishUrls("eu-west-1", 1, [link("https://example.de/")]);

  const frontier = await connectAs("eu-west-1-frontier-1");
  const frontierState = await NatsKvClusterState.open(frontier);
  const frontierBus = bus(frontier);
  await frontierBus.ensureRegion("eu-west-1", PARTITIONS);
  let seeds: DiscoveredUrl[] | undefined;
  frontierBus.consumeUrls("eu-west-1", 1, async (d) => {
    seeds = d.data;
    await d.ack();
  });
  expect((await until(() => seeds, "the seed at the eu-west-1 frontier node"))[0]!.url).toBe("https://example.de/");
  let ring: number | undefined;
  const stopWatch = frontierState.watchRing((_r, revision) => (ring = revision));
  expect(await coordinatorBusRing(state)).toBeGreaterThan(0);
  await until(() => ring, "the ring, watched by the frontier node");
  stopWatch();
  const t = task("t-1", "example.de", 1);
  await frontierBus.publishTask("eu-west-1", t);

  const fetcher = await connectAs("eu-west-1-fetch-1");
  await NatsKvClusterState.open(fetcher);
  const fetchBus = bus(fetcher);
  await fetchBus.ensureRegion("eu-west-1", PARTITIONS);
  let got: FetchTask | undefined;
  fetchBus.consumeTasks(
    "eu-west-1",
    async (d) => {
      got = d.data;
      await fetchBus.publishUrls("us-east-1", 2, [link("https://example.com/from-eu")]);
      await fetchBus.publishResult("eu-west-1", result(d.data));
      await d.ack();
    },
    { concurrency: 1 },
  );
  expect((await until(() => got, "the task at the eu-west-1 fetch node")).taskId).toBe("t-1");

  let back: FetchResult | undefined;
  frontierBus.consumeResults("eu-west-1", 1, async (d) => {
    back = d.data;
    await d.ack();
  });
  expect((await until(() => back, "the result back at the frontier node")).status).toBe(200);

  // The link crossed the gateway into us-east-1's stream, where that region's frontier user pulls it.
  const usFrontierBus = bus(await connectAs("us-east-1-frontier-1"));
  let crossed: DiscoveredUrl[] | undefined;
  usFrontierBus.consumeUrls("us-east-1", 2, async (d) => {
    crossed = d.data;
    await d.ack();
  });
  expect((await until(() => crossed, "the cross-region link in us-east-1"))[0]!.url).toBe("https://example.com/from-eu");
}, 120_000);

/** The coordinator writes a ring (compare-and-set from revision 0), as its rebalancer does. */
async function coordinatorBusRing(state: NatsKvClusterState): Promise<number> {
  const rev = await state.casRing({ version: 1, partitions: PARTITIONS, owners: [], previous: [] } as never, 0);
  if (rev === undefined) throw new Error("the coordinator could not write the ring");
  return rev;
}

test("fleet NATS - a role is refused another role's subjects, and a wrong password is refused", async () => {
  const fetchBus = bus(await connectAs("us-east-1-fetch-1"));
  // Only frontier nodes publish fetch tasks.
  await expect(fetchBus.publishTask("us-east-1", task("forged", "example.com", 0))).rejects.toThrow();
  // A frontier node of eu-west-1 dispatches to its own region only.
  const euFrontierBus = bus(await connectAs("eu-west-1-frontier-1"));
  await expect(euFrontierBus.publishTask("us-east-1", task("wrong-region", "example.com", 0))).rejects.toThrow();
  // A fetch node may not write the ring (only the coordinator and frontier nodes do).
  const fetchState = await NatsKvClusterState.open(await connectAs("us-east-1-fetch-1"));
  await expect(fetchState.casRing({ version: 2 } as never, 0)).rejects.toThrow();
  // The servers say why: the permissions, not a missing stream.
  const logs = servers.map((s) => s.log()).join("\n");
  expect(logs).toMatch(/Publish Violation - User "fetch", Subject "crawl\.fetch\.us-east-1"/);
  expect(logs).toMatch(/Publish Violation - User "frontier", Subject "crawl\.fetch\.us-east-1"/);
  expect(logs).toMatch(/Publish Violation - User "fetch", Subject "\$KV\.crawl-ring\.ring"/);

  const m = fleet.machines["us-east-1-frontier-1"]!;
  await expect(
    connectNats(m.env["CRAWL_NATS_URL"]!.split(","), "intruder", {
      user: "frontier",
      pass: "not-the-password",
      maxReconnectAttempts: 0,
      waitOnFirstConnect: false,
    }),
  ).rejects.toThrow(/Authorization/i);
}, 60_000);
