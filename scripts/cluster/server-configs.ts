/**
 * The configuration files of a local cluster's servers, one per region each: nats-server with JetStream
 * and redis-server with an append-only file, both on fixed loopback ports and keeping their data under
 * DIR, so a restarted server (by the supervisor, or a whole new `cluster up` on the same DIR) comes back
 * with what it had.
 *
 * NATS: one server per region. With several regions each server is a JetStream cluster of its own, named
 * after its region (the streams of a region are placed there, see adapters/nats/region-setup.ts), with a
 * route to itself (nats-server 2.9 wants a route before a clustered JetStream elects a meta leader) and a
 * gateway to every other region's server at its fixed gateway port. `http` is the monitoring port: its
 * `/healthz` answers 200 once JetStream has a meta leader, which is what the supervisor waits for.
 *
 * Redis: `appendonly yes` with `appendfsync everysec` (a kill -9 loses at most the last second of
 * seen-set bits), no RDB snapshots, the AOF under the region's directory. The default user is left as it
 * is: a later ACL setup must keep it enabled (with an unknown password), because Redis 7.0 replays the
 * AOF as the default user and drops what that user may not run.
 */

export interface NatsServerFile {
  region: string;
  /** Every region of the cluster, in order; more than one turns on the cluster and gateway blocks. */
  regions: readonly string[];
  storeDir: string;
  ports: { client: number; monitor: number; route?: number; gateway?: number };
  /** The gateway port of every region, for the gateway list. */
  gatewayPorts: Record<string, number>;
}

export function natsServerConfig(s: NatsServerFile): string {
  const lines = [
    `server_name: "nats-${s.region}"`,
    `listen: "127.0.0.1:${s.ports.client}"`,
    `http: "127.0.0.1:${s.ports.monitor}"`,
    `jetstream { store_dir: ${JSON.stringify(s.storeDir)} }`,
  ];
  if (s.regions.length > 1) {
    if (s.ports.route === undefined || s.ports.gateway === undefined)
      throw new Error(`nats-server of ${s.region} needs route and gateway ports`);
    const others = s.regions.filter((r) => r !== s.region).map((r) => `{ name: "${r}", urls: ["nats://127.0.0.1:${s.gatewayPorts[r]}"] }`);
    lines.push(
      `cluster { name: "${s.region}", listen: "127.0.0.1:${s.ports.route}", routes: ["nats://127.0.0.1:${s.ports.route}"] }`,
      `gateway { name: "${s.region}", listen: "127.0.0.1:${s.ports.gateway}", gateways: [${others.join(", ")}] }`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export interface RedisServerFile {
  port: number;
  dataDir: string;
}

export function redisServerConfig(s: RedisServerFile): string {
  return [
    `port ${s.port}`,
    "bind 127.0.0.1",
    "protected-mode yes",
    "daemonize no",
    `dir ${JSON.stringify(s.dataDir)}`,
    "appendonly yes",
    "appendfsync everysec",
    'appenddirname "appendonly"',
    'save ""',
    "",
  ].join("\n");
}
