/**
 * `cluster up --secure`: the local cluster with TLS and authentication on every link, the way the fleet
 * runs (deploy/terraform/modules/fleet renders the same settings). It maps over the plans (plan.ts) and
 * adds, per process:
 *
 *   nats-server    a certificate; TLS for clients, mutual TLS on routes and gateways; one user per role
 *                  with core/cluster's permissions (renderNatsAccounts)
 *   redis-server   a certificate; a TLS port only; the crawler's ACL user (core/cluster REDIS_CRAWLER_ACL);
 *                  the default user kept with a fresh random password nobody is told (Redis 7.0 replays
 *                  the AOF as the default user)
 *   coordinator    its NATS user, the CA; gRPC mutual TLS and HTTPS with its own certificate
 *   frontier       the same, and Redis over TLS as the crawler's user
 *   fetch          its NATS user, the CA; HTTPS; Redis over TLS as the crawler's user
 *
 * Secrets stay out of the process list: passwords, the Redis URL (which holds one) and the admin token
 * go in the environment, not in argv. The CA and one certificate per process id live in DIR/tls
 * (kit/tls: ca.pem, ca.key, <id>.pem, <id>.key; keys 0600), the passwords in DIR/secrets.json (0600); both
 * are made once and kept, so a later `cluster up --secure` on the same DIR resumes with the same CA and
 * passwords (and a process added later gets its certificate then).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NATS_ROLES, REDIS_CRAWLER_ACL, REDIS_CRAWLER_USER, renderNatsAccounts, type NatsRole } from "../../core/cluster/index.ts";
import { authorityFiles, initAuthority, issueNodeFiles, type NodeFiles } from "../../kit/tls/index.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import type { PortMap } from "./layout.ts";
import { redisUrl, type ProcessPlan } from "./plan.ts";
import { natsServerConfig, redisServerConfig, type NatsServerFile } from "./server-configs.ts";

export const TLS_DIR = "tls";
export const SECRETS_FILE = "secrets.json";

/** The cluster's passwords: one per NATS role (and NATS's system user), one for Redis's crawler user. */
export interface Secrets {
  nats: Record<NatsRole | "system", string>;
  redis: string;
}

export interface SecureMaterial {
  /** PEM file of the cluster's CA: every client checks every server against it. */
  caFile: string;
  /** The CA's PEM text (probes, the admin client). */
  caPem: string;
  /** Certificate and key by process id. */
  files: Record<string, NodeFiles>;
  secrets: Secrets;
}

/**
 * Makes (or reads) DIR/tls and DIR/secrets.json for `plans`: the CA when DIR has none, a certificate for
 * each process that has none (valid for 127.0.0.1 and localhost, naming its role and id).
 */
export async function prepareSecurity(dir: string, plans: readonly ProcessPlan[]): Promise<SecureMaterial> {
  const tlsDir = join(dir, TLS_DIR);
  const { caFile } = authorityFiles(tlsDir);
  if (!existsSync(caFile)) await initAuthority(tlsDir, { commonName: `crawler local cluster CA (${dir})` });
  const files: Record<string, NodeFiles> = {};
  for (const plan of plans) {
    const certFile = join(tlsDir, `${plan.id}.pem`);
    const keyFile = join(tlsDir, `${plan.id}.key`);
    files[plan.id] =
      existsSync(certFile) && existsSync(keyFile)
        ? { caFile, certFile, keyFile }
        : await issueNodeFiles(tlsDir, { identity: { role: plan.role, id: plan.id }, hosts: ["127.0.0.1", "localhost"] });
  }
  return { caFile, caPem: readFileSync(caFile, "utf8"), files, secrets: readOrMakeSecrets(dir) };
}

function readOrMakeSecrets(dir: string): Secrets {
  const path = join(dir, SECRETS_FILE);
  if (existsSync(path)) {
    let value: Partial<Secrets>;
    try {
      value = JSON.parse(readFileSync(path, "utf8")) as Partial<Secrets>;
    } catch (error) {
      throw new Error(`${path} is not JSON (${(error as Error).message}); fix it or delete it (new passwords are chosen)`);
    }
    const complete =
      typeof value.redis === "string" && [...NATS_ROLES, "system" as const].every((r) => typeof value.nats?.[r] === "string");
    if (!complete) throw new Error(`${path} lacks a password (nats: coordinator, frontier, fetch, system; redis); fix it or delete it`);
    return value as Secrets;
  }
  const secrets: Secrets = {
    nats: { coordinator: password(), frontier: password(), fetch: password(), system: password() },
    redis: password(),
  };
  writeFileAtomic(path, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return secrets;
}

/** 24 random bytes as hex: safe in a URL, a nats-server configuration and a Redis ACL rule alike. */
function password(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex");
}

export interface SecureInput {
  regions: readonly string[];
  ports: Record<string, PortMap>;
  token: string;
}

/** The plans with TLS and credentials on every link (see the module comment). */
export function securePlans(plans: readonly ProcessPlan[], m: SecureMaterial, input: SecureInput): ProcessPlan[] {
  return plans.map((plan) => {
    const own = m.files[plan.id]!;
    const tls = { certFile: own.certFile, keyFile: own.keyFile, caFile: m.caFile };
    switch (plan.role) {
      case "nats":
        return {
          ...plan,
          // The configuration holds the passwords: readable by its owner only.
          files: plan.files.map((f) => ({ ...f, text: secureNatsConfig(plan, m, input, tls), mode: 0o600 })),
        };
      case "redis":
        return {
          ...plan,
          files: [
            {
              path: plan.files[0]!.path,
              text: redisServerConfig({
                port: plan.ports["redis"]!,
                dataDir: plan.dataDir!,
                secure: { tls, user: REDIS_CRAWLER_USER, password: m.secrets.redis, acl: REDIS_CRAWLER_ACL, defaultPassword: password() },
              }),
              mode: 0o600,
            },
          ],
          probe: {
            kind: "redis",
            port: plan.ports["redis"]!,
            secure: { ca: m.caPem, user: REDIS_CRAWLER_USER, password: m.secrets.redis },
          },
        };
      case "coordinator":
        return {
          ...plan,
          args: withoutFlag(plan.args, "--admin-token"),
          env: { ...plan.env, ...natsEnv("coordinator", m), ...grpcEnv(own), ...httpEnv(own), CRAWL_ADMIN_TOKEN: input.token },
          probe: { kind: "http", url: `https://127.0.0.1:${plan.ports["http"]}/healthz`, ca: m.caPem },
        };
      case "frontier":
        return {
          ...plan,
          args: withoutFlag(plan.args, "--redis-url"),
          env: { ...plan.env, ...natsEnv("frontier", m), ...grpcEnv(own), ...httpEnv(own), ...redisEnv(plan, m, input) },
        };
      case "fetch": {
        const env = { ...plan.env, ...natsEnv("fetch", m), ...httpEnv(own), ...redisEnv(plan, m, input) };
        const args = withoutFlag(plan.args, "--redis-url").map((a) =>
          // Deno reads only what it is allowed to: the TLS files too.
          a.startsWith("--allow-read=") ? `${a},${m.caFile},${own.certFile},${own.keyFile}` : a,
        );
        return { ...plan, args, env };
      }
    }
  });
}

function secureNatsConfig(
  plan: ProcessPlan,
  m: SecureMaterial,
  input: SecureInput,
  tls: { certFile: string; keyFile: string; caFile: string },
): string {
  const p = plan.ports;
  const file: NatsServerFile = {
    region: plan.region,
    regions: input.regions,
    storeDir: plan.dataDir!,
    ports: { client: p["client"]!, monitor: p["monitor"]!, route: p["route"], gateway: p["gateway"] },
    gatewayPorts: Object.fromEntries(input.regions.map((r) => [r, input.ports[`nats-${r}`]!["gateway"] ?? 0])),
    secure: { tls, accounts: renderNatsAccounts({ region: plan.region, regions: input.regions, passwords: m.secrets.nats }) },
  };
  return natsServerConfig(file);
}

function natsEnv(role: NatsRole, m: SecureMaterial): Record<string, string> {
  return { CRAWL_NATS_USER: role, CRAWL_NATS_PASSWORD: m.secrets.nats[role], CRAWL_NATS_TLS_CA_FILE: m.caFile };
}

function grpcEnv(own: NodeFiles): Record<string, string> {
  return { CRAWL_GRPC_TLS_CA_FILE: own.caFile, CRAWL_GRPC_TLS_CERT_FILE: own.certFile, CRAWL_GRPC_TLS_KEY_FILE: own.keyFile };
}

function httpEnv(own: NodeFiles): Record<string, string> {
  return { CRAWL_HTTP_TLS_CERT_FILE: own.certFile, CRAWL_HTTP_TLS_KEY_FILE: own.keyFile };
}

/** The region's Redis over TLS as the crawler's user; the URL holds the password, so it goes in the environment. */
function redisEnv(plan: ProcessPlan, m: SecureMaterial, input: SecureInput): Record<string, string> {
  const plain = new URL(redisUrl(input.ports, plan.region));
  return {
    CRAWL_REDIS_URL: `rediss://${REDIS_CRAWLER_USER}:${m.secrets.redis}@${plain.host}`,
    CRAWL_REDIS_TLS_CA_FILE: m.caFile,
  };
}

/** `args` without `flag` and its value. */
function withoutFlag(args: readonly string[], flag: string): string[] {
  const i = args.indexOf(flag);
  return i < 0 ? [...args] : [...args.slice(0, i), ...args.slice(i + 2)];
}
