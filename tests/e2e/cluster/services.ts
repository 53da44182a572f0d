/**
 * The servers of a cluster whose roles are started one by one (`ClusterHarness.services`): nats-server (one,
 * a region's 3-server cluster, or one per region joined by gateways) and redis-server (one per region),
 * each stopped by the teardown `register` is given; data directories from `tempDir`, so a restart can take
 * them over.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNats, startNatsCluster, startNatsSupercluster, type NatsCluster, type NatsServer } from "../../support/nats.ts";
import type { Netns } from "../../support/netns.ts";
import { startRedis, type RedisServer } from "../../support/redis.ts";
import { logClock } from "../../testweb/index.ts";
import { KEEP_FOR_DEBUGGING, keptDir } from "../politeness.ts";
import { REGION } from "./coordinator.ts";

export interface Services {
  /** The NATS server running now (with `natsCluster`: its first member, as it was at the start). */
  nats: NatsServer;
  redis: RedisServer;
  natsCluster?: NatsCluster;
  /**
   * With `ServicesOptions.otherRegions`: each other region's nats-server (joined to REGION's by a
   * gateway) and redis-server, and the network namespace its nats-server runs in, if any.
   */
  regions: Record<string, { nats: NatsServer; redis: RedisServer; natsNetns?: Netns }>;
  /**
   * Kills redis-server (SIGKILL) and, after `downMs`, starts it again on its port: with its directory
   * (AOF: its data comes back; without persistence: empty). Resolves with when it died and came back.
   */
  restartRedis(downMs: number): Promise<{ killedAt: number; backAt: number }>;
  /** The same for nats-server (a single one): same port, same store directory. */
  restartNats(downMs: number): Promise<{ killedAt: number; backAt: number }>;
  /** The process ids of the servers running now (every NATS cluster member up, Redis), e.g. to renice them. */
  pids(): number[];
}

export interface ServicesOptions {
  /** Redis with AOF (fsync every second), as `cluster up` and the fleet run it. Default: no persistence. */
  redisAppendOnly?: boolean;
  /** A 3-server NATS cluster with 3 stream replicas instead of one server. */
  natsCluster?: boolean;
  /**
   * The addresses nats-server and redis-server listen on (Redis: beside 127.0.0.1), e.g. a network lab's
   * server addresses, so roles in network namespaces reach them. Default: 127.0.0.1. Single server only.
   */
  listenOn?: { nats: string; redis: string };
  /**
   * Regions beside REGION, each with a nats-server of its own joined to REGION's by a gateway (one
   * server per region, each its own JetStream cluster named after its region: a supercluster, as a
   * multi-region fleet runs) and a redis-server of its own. A region given a namespace runs its
   * nats-server inside it, listening on the namespace's address, so a row can cut its gateway (and
   * nothing else: its roles run on the host and reach it through the namespace's veth).
   */
  otherRegions?: readonly { name: string; natsNetns?: Netns }[];
  /**
   * With `otherRegions`: REGION's nats-server runs in this namespace (on its address, not `listenOn.nats`).
   * A gateway cut needs each server in a namespace of its own: the host dials a namespace from its veth
   * end, the address its roles dial from too, so only a server in another namespace has an address of
   * its own to cut.
   */
  natsNetns?: Netns;
}

export async function startServices(
  opts: ServicesOptions,
  { register, tempDir }: { register: (teardown: () => Promise<unknown>) => void; tempDir: () => string },
): Promise<Services> {
  let nats: NatsServer;
  let natsCluster: NatsCluster | undefined;
  const regions: Services["regions"] = {};
  if (opts.natsCluster) {
    natsCluster = await startNatsCluster();
    const cluster = natsCluster;
    register(async () => {
      if (KEEP_FOR_DEBUGGING) {
        // Each server as it runs now (a restarted one: its log since the restart).
        const dir = mkdtempSync(join(tmpdir(), "cluster-e2e-log-"));
        cluster.servers.forEach((server, i) => writeFileSync(join(dir, `nats-${i + 1}.log`), server.log()));
        keptDir("the NATS cluster's logs", dir);
      }
      await cluster.stop();
    });
    nats = cluster.servers[0]!;
  } else if (opts.otherRegions?.length) {
    const others = opts.otherRegions;
    const names = [REGION, ...others.map((r) => r.name)];
    const listenOn: Record<string, string> = { [REGION]: opts.listenOn?.nats ?? "127.0.0.1" };
    const execIn: Record<string, (cmd: string[]) => string[]> = {};
    for (const r of [{ name: REGION, natsNetns: opts.natsNetns }, ...others]) {
      if (!r.natsNetns) continue;
      const ns = r.natsNetns;
      listenOn[r.name] = ns.address;
      execIn[r.name] = (cmd) => ns.exec(cmd);
    }
    const supercluster = await startNatsSupercluster(names, { listenOn, execIn });
    register(() => supercluster.stop());
    nats = supercluster.regions[REGION]!;
    for (const r of others) {
      const redis = await startRedis({ dir: tempDir() });
      register(() => redis.stop());
      regions[r.name] = { nats: supercluster.regions[r.name]!, redis, natsNetns: r.natsNetns };
    }
  } else {
    // The store directory is the harness's, so a restart can take it over.
    nats = await startNats({ jetstream: true, storeDir: tempDir(), host: opts.listenOn?.nats });
  }
  // The server running now, whichever restart it is: stopped at teardown.
  let currentNats = nats;
  if (!natsCluster && !opts.otherRegions?.length) register(() => currentNats.stop());
  const redisDir = tempDir();
  let currentRedis = await startRedis({ appendOnly: opts.redisAppendOnly, dir: redisDir, host: opts.listenOn?.redis });
  register(() => currentRedis.stop());
  const services: Services = {
    nats,
    redis: currentRedis,
    natsCluster,
    regions,
    async restartRedis(downMs) {
      const { port } = currentRedis;
      await currentRedis.kill();
      const killedAt = logClock();
      await Bun.sleep(downMs); // the outage itself: how long the server is gone is the fault's size
      currentRedis = await startRedis({ appendOnly: opts.redisAppendOnly, dir: redisDir, port, host: opts.listenOn?.redis });
      services.redis = currentRedis;
      return { killedAt, backAt: logClock() };
    },
    async restartNats(downMs) {
      if (natsCluster) throw new Error("restartNats is for a single server; kill and restart a cluster member instead");
      if (opts.otherRegions?.length) throw new Error("restartNats is for a single region's server");
      const { port, storeDir } = currentNats;
      await currentNats.kill();
      const killedAt = logClock();
      await Bun.sleep(downMs); // the outage itself
      currentNats = await startNats({ jetstream: true, port, storeDir, host: opts.listenOn?.nats });
      services.nats = currentNats;
      return { killedAt, backAt: logClock() };
    },
    pids: () => [
      ...(natsCluster ? natsCluster.servers.map((s) => s.pid) : [currentNats.pid]),
      currentRedis.pid,
      ...Object.values(regions).flatMap((r) => [r.nats.pid, r.redis.pid]),
    ],
  };
  return services;
}
