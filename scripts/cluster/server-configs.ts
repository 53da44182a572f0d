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
 * Redis: `appendonly yes` with `appendfsync everysec` (a kill -9 loses at most the last second of what
 * is written to it: the exact fingerprints and the fetch claims; the seen-sets, near-duplicate buckets and
 * address passes stay out of it, docs/cluster.md "What Redis keeps across a restart"), no RDB snapshots,
 * the AOF under the region's directory.
 *
 * With `secure` (cluster up --secure, secure.ts): nats-server speaks TLS to clients, routes and gateways
 * (the latter two mutual), and its accounts are core/cluster's per-role users; redis-server listens on a
 * TLS port only, with the crawler's ACL user. Redis's default user stays enabled with a password nobody
 * knows, because Redis 7.0 replays the AOF as the default user and drops what that user may not run.
 */

export interface NatsServerFile {
  region: string;
  /** Every region of the cluster, in order; more than one turns on the cluster and gateway blocks. */
  regions: readonly string[];
  storeDir: string;
  ports: { client: number; monitor: number; route?: number; gateway?: number };
  /** The gateway port of every region, for the gateway list. */
  gatewayPorts: Record<string, number>;
  /** TLS everywhere and the per-role users (their `accounts` block, core/cluster renderNatsAccounts). */
  secure?: { tls: TlsFiles; accounts: string };
}

/** A server's certificate and key and the CA that signs every certificate of the cluster. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/** nats-server's `tls` block; `verify` asks the other side for a certificate too (routes, gateways). */
function natsTls(t: TlsFiles, verify: boolean): string {
  const files = `cert_file: ${JSON.stringify(t.certFile)}, key_file: ${JSON.stringify(t.keyFile)}, ca_file: ${JSON.stringify(t.caFile)}`;
  return `tls { ${files}, ${verify ? "verify: true, " : ""}timeout: 5 }`;
}

export function natsServerConfig(s: NatsServerFile): string {
  const lines = [
    `server_name: "nats-${s.region}"`,
    `listen: "127.0.0.1:${s.ports.client}"`,
    `http: "127.0.0.1:${s.ports.monitor}"`,
    `jetstream { store_dir: ${JSON.stringify(s.storeDir)} }`,
  ];
  // Clients speak TLS and prove who they are with their role's password.
  if (s.secure) lines.push(natsTls(s.secure.tls, false));
  const peerTls = s.secure ? `, ${natsTls(s.secure.tls, true)}` : "";
  if (s.regions.length > 1) {
    if (s.ports.route === undefined || s.ports.gateway === undefined)
      throw new Error(`nats-server of ${s.region} needs route and gateway ports`);
    const others = s.regions.filter((r) => r !== s.region).map((r) => `{ name: "${r}", urls: ["nats://127.0.0.1:${s.gatewayPorts[r]}"] }`);
    lines.push(
      `cluster { name: "${s.region}", listen: "127.0.0.1:${s.ports.route}", routes: ["nats://127.0.0.1:${s.ports.route}"]${peerTls} }`,
      `gateway { name: "${s.region}", listen: "127.0.0.1:${s.ports.gateway}", gateways: [${others.join(", ")}]${peerTls} }`,
    );
  }
  if (s.secure) lines.push(s.secure.accounts);
  return `${lines.join("\n")}\n`;
}

export interface RedisServerFile {
  port: number;
  dataDir: string;
  /**
   * The port speaks TLS only; the crawler's user (`user`, its password and ACL rules) is the one that
   * works; the default user gets `defaultPassword`, which nobody is told.
   */
  secure?: { tls: TlsFiles; user: string; password: string; acl: string; defaultPassword: string };
}

export function redisServerConfig(s: RedisServerFile): string {
  const listen = s.secure
    ? [
        "port 0",
        `tls-port ${s.port}`,
        `tls-cert-file ${JSON.stringify(s.secure.tls.certFile)}`,
        `tls-key-file ${JSON.stringify(s.secure.tls.keyFile)}`,
        `tls-ca-cert-file ${JSON.stringify(s.secure.tls.caFile)}`,
        "tls-auth-clients no",
        `user default on >${s.secure.defaultPassword} ~* &* +@all`,
        `user ${s.secure.user} on >${s.secure.password} ${s.secure.acl}`,
      ]
    : [`port ${s.port}`];
  return [
    ...listen,
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
