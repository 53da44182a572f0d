/**
 * Fault: one server of the region's 3-server NATS cluster (routes; streams, the cluster-state and ring
 * buckets and the replicated partition state with 3 replicas; every role given all three URLs: a fleet's
 * region) killed (SIGKILL) mid-crawl. The
 * server killed is the leader of the fetch-task stream, the worst one to lose: the stream elects another
 * leader, clients on the dead server move to the others, and the crawl goes on with two of three (the
 * test waits for pages fetched while it is down). The server then comes back with its store and catches
 * up. Nothing is lost, pages fetched twice are at most those in flight at the fault, no host waits longer
 * than the outage and its gap, and afterwards every stream has its 3 copies current again.
 *
 * The outage a host may wait out lasts from the kill until every stream and consumer of the region has a
 * leader again: elections go on after the server is back (under load, the last 8 s after the kill), and a
 * result the dying leader was sending returns after its 5 s ack wait.
 *
 * Kept out of the suite (as `.open.ts`) until two causes of lost pages were fixed: live frontier nodes were
 * declared dead while the cluster-state bucket had no leader (the coordinator's lease writes failed while
 * reads worked; the nodes' beats listed every record first and timed out), so partitions moved without a
 * handoff and were restored from replicas missing their last rows; and a ring write undone by nats-server
 * 2.9.10's compare-and-set could name a giver again after its handoff, so it streamed nothing and the
 * receiver dropped the partition's hosts. tests/faults/README.md has the runs.
 */
import { describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats } from "../../adapters/nats/index.ts";
import { CLUSTER_BUCKET, objectStores, RING_BUCKET, streams } from "../../core/cluster/index.ts";
import { REGION } from "../e2e/cluster/coordinator.ts";
import { pageRequests, waitUntil, type Roles } from "../e2e/cluster/harness.ts";
import type { NatsCluster } from "../support/nats.ts";
import type { TestWeb } from "../testweb/index.ts";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster, type FaultWindow } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();

/** Pages fetched while the server is down, to call the crawl going on. */
const PAGES_WHILE_DOWN = 20;
/** Every stream the crawl keeps in the region: the bus, the cluster state, the replicated partition state. */
const STREAMS = [
  streams.urls(REGION),
  streams.fetch(REGION),
  streams.results(REGION),
  `KV_${CLUSTER_BUCKET}`,
  `KV_${RING_BUCKET}`,
  streams.state(REGION),
  `OBJ_${objectStores.state(REGION)}`,
];

describe("fault: one NATS server of three killed", () => {
  test("the fetch stream's leader of a 3-server cluster killed mid-crawl: the crawl goes on with two, nothing lost, duplicates at most in flight, the cluster heals", async () => {
    const run = await crawlThroughFault(cluster, {
      services: { natsCluster: true },
      inject: killFetchStreamLeader,
      // The crawl goes on with two servers: it may be over while the cluster elects its last leaders
      // (seen in CI: 768 of 768 pages by then).
      mayFinishDuringFault: true,
    });
    console.log(describeRun("nats server of three killed", run));
    expectNothingLost(run);

    // Healed: the restarted server is a current replica of every stream again, none offline.
    const nats = run.roles.services.natsCluster!;
    const conn = await connectNats([...nats.urls], "fault-check");
    try {
      const jsm = await jetstreamManager(conn);
      await waitUntil(
        async () => {
          for (const name of STREAMS) {
            const info = await jsm.streams.info(name);
            const replicas = info.cluster?.replicas ?? [];
            if (info.config.num_replicas !== 3 || replicas.length !== 2 || !replicas.every((r) => r.current && !r.offline)) return false;
          }
          return true;
        },
        { timeoutMs: 30_000, what: "every stream's 3 copies current again" },
      );
    } finally {
      await conn.close();
    }
  }, 360_000);
});

/** Kills the server leading the fetch-task stream, waits for pages fetched without it, then restarts it. */
async function killFetchStreamLeader(roles: Roles, web: TestWeb): Promise<FaultWindow> {
  const nats = roles.services.natsCluster!;
  const victim = await fetchStreamLeader(nats);
  const before = pageRequests(web).length;
  await nats.kill(victim);
  const killedAt = logClock();
  await waitUntil(() => pageRequests(web).length >= before + PAGES_WHILE_DOWN, {
    timeoutMs: 60_000,
    what: `${PAGES_WHILE_DOWN} pages fetched with one NATS server of three down`,
    procs: roles.procs(),
  });
  await nats.restart(victim);
  // Back when every stream and consumer of the region has a leader again: elections go on after the
  // server returns (measured up to 8 s after the kill), and a stream or consumer without a leader is out.
  await waitUntil(() => everyLeaderElected(nats), {
    timeoutMs: 60_000,
    what: "a leader for every stream and consumer",
    procs: roles.procs(),
  });
  return { killedAt, backAt: logClock() };
}

/** Whether every stream of STREAMS and every consumer of them has a leader now. */
async function everyLeaderElected(nats: NatsCluster): Promise<boolean> {
  const conn = await connectNats([...nats.urls], "fault-probe");
  try {
    const jsm = await jetstreamManager(conn);
    for (const name of STREAMS) {
      if (!(await jsm.streams.info(name)).cluster?.leader) return false;
      for await (const consumer of jsm.consumers.list(name)) if (!consumer.cluster?.leader) return false;
    }
    return true;
  } catch {
    return false; // a stream without a leader does not answer
  } finally {
    await conn.close();
  }
}

/** The index (in `nats.servers`) of the server that leads the fetch-task stream now. */
async function fetchStreamLeader(nats: NatsCluster): Promise<number> {
  const conn = await connectNats([...nats.urls], "fault-probe");
  try {
    const info = await (await jetstreamManager(conn)).streams.info(streams.fetch(REGION));
    const leader = info.cluster?.leader;
    // Members are named <cluster>-<n>, n from 1, in the order of `servers` (tests/support/nats.ts).
    const index = Number(/-(\d+)$/.exec(leader ?? "")?.[1]) - 1;
    if (!(index >= 0 && index < nats.servers.length))
      throw new Error(`no leader of the fetch stream among the cluster's servers: ${leader}`);
    return index;
  } finally {
    await conn.close();
  }
}
