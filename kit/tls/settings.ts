/**
 * The security settings of the cluster's roles, as config table rows every role includes in its own
 * table, with the env var names the Terraform fleet renders (deploy/terraform/modules/fleet/env.tf):
 *
 *   NATS     CRAWL_NATS_USER, CRAWL_NATS_PASSWORD (the role's user), CRAWL_NATS_TLS_CA_FILE (TLS on)  every role
 *   Redis    CRAWL_REDIS_TLS_CA_FILE (with a rediss:// URL; the ACL user and password are in the URL)  frontier, fetch
 *   gRPC     CRAWL_GRPC_TLS_{CA,CERT,KEY}_FILE (TLS, mutual between nodes)                          coordinator, frontier
 *   HTTP     CRAWL_HTTP_TLS_{CERT,KEY}_FILE (admin API, /healthz, /readyz, /metrics over HTTPS)       every role
 *
 * Empty means off: each link is plain unless its files are given. `checkSecuritySettings` reports
 * settings that only make sense together (a certificate without its key...), so a half-configured node
 * exits 2 at once instead of failing at its first call.
 */
import { stringKind, tableRows, type ValueKind } from "../../core/config/index.ts";

export interface NatsAccessSettings {
  natsUser: string;
  natsPassword: string;
  natsTlsCaFile: string;
}

export interface RedisTlsSettings {
  redisTlsCaFile: string;
}

export interface GrpcTlsSettings {
  grpcTlsCaFile: string;
  grpcTlsCertFile: string;
  grpcTlsKeyFile: string;
}

export interface HttpTlsSettings {
  httpTlsCertFile: string;
  httpTlsKeyFile: string;
}

/** A file path; "" means none. */
function fileKind(): ValueKind<string> {
  return stringKind("file");
}

export const NATS_ACCESS_SETTINGS = tableRows<NatsAccessSettings>({
  natsUser: {
    default: "",
    defaultText: "none: no authentication",
    env: "CRAWL_NATS_USER",
    flag: "--nats-user",
    description: "NATS user of this role (coordinator, frontier or fetch), whose permissions allow only the role's subjects",
    ...stringKind("name", (v) => (/^[\x21-\x7e]*$/.test(v) ? undefined : "must be printable ASCII without spaces")),
  },
  natsPassword: {
    default: "",
    defaultText: "none",
    env: "CRAWL_NATS_PASSWORD",
    flag: "--nats-password",
    description: "Password of --nats-user (prefer the env var: flags show in the process list)",
    ...stringKind("secret"),
  },
  natsTlsCaFile: {
    default: "",
    defaultText: "none: plain text, unless the URL is tls://",
    env: "CRAWL_NATS_TLS_CA_FILE",
    flag: "--nats-tls-ca-file",
    description: "PEM file of the CA that signs the NATS servers' certificates; given, the connection must be TLS",
    ...fileKind(),
  },
});

export const REDIS_TLS_SETTINGS = tableRows<RedisTlsSettings>({
  redisTlsCaFile: {
    default: "",
    defaultText: "none: the system's CAs (with rediss://)",
    env: "CRAWL_REDIS_TLS_CA_FILE",
    flag: "--redis-tls-ca-file",
    description: "PEM file of the CA that signs the Redis server's certificate; needs a rediss:// URL (user and password go in the URL)",
    ...fileKind(),
  },
});

export const GRPC_TLS_SETTINGS = tableRows<GrpcTlsSettings>({
  grpcTlsCaFile: {
    default: "",
    defaultText: "none: plain-text gRPC",
    env: "CRAWL_GRPC_TLS_CA_FILE",
    flag: "--grpc-tls-ca-file",
    description:
      "PEM file of the cluster's CA: peers' certificates must be signed by it (with the cert and key below, gRPC is TLS, mutual between nodes)",
    ...fileKind(),
  },
  grpcTlsCertFile: {
    default: "",
    defaultText: "none",
    env: "CRAWL_GRPC_TLS_CERT_FILE",
    flag: "--grpc-tls-cert-file",
    description: "PEM file of this node's certificate, naming its role and id (crawlctl certs node); used as server and as client",
    ...fileKind(),
  },
  grpcTlsKeyFile: {
    default: "",
    defaultText: "none",
    env: "CRAWL_GRPC_TLS_KEY_FILE",
    flag: "--grpc-tls-key-file",
    description: "PEM file of the private key of --grpc-tls-cert-file",
    ...fileKind(),
  },
});

export const HTTP_TLS_SETTINGS = tableRows<HttpTlsSettings>({
  httpTlsCertFile: {
    default: "",
    defaultText: "none: plain HTTP",
    env: "CRAWL_HTTP_TLS_CERT_FILE",
    flag: "--http-tls-cert-file",
    description: "PEM certificate of the HTTP listener (admin API, /healthz, /readyz, /metrics); given, it serves HTTPS only",
    ...fileKind(),
  },
  httpTlsKeyFile: {
    default: "",
    defaultText: "none",
    env: "CRAWL_HTTP_TLS_KEY_FILE",
    flag: "--http-tls-key-file",
    description: "PEM file of the private key of --http-tls-cert-file",
    ...fileKind(),
  },
});

/**
 * Problems of settings that only make sense together; `values` holds whichever of the four tables the
 * role reads. `redisUrl` is the role's Redis URL, when it has one.
 */
export function checkSecuritySettings(
  values: Partial<NatsAccessSettings & RedisTlsSettings & GrpcTlsSettings & HttpTlsSettings>,
  redisUrl?: string,
): string[] {
  const problems: string[] = [];
  if (Boolean(values.natsUser) !== Boolean(values.natsPassword))
    problems.push("natsUser: --nats-user and --nats-password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD) go together");
  if (values.redisTlsCaFile && !(redisUrl ?? "").startsWith("rediss://"))
    problems.push("redisTlsCaFile: --redis-tls-ca-file needs a rediss:// --redis-url (TLS)");
  const grpc = [values.grpcTlsCaFile, values.grpcTlsCertFile, values.grpcTlsKeyFile];
  if (grpc.some(Boolean) && !grpc.every(Boolean))
    problems.push(
      "grpcTlsCaFile: gRPC TLS needs all three of --grpc-tls-ca-file, --grpc-tls-cert-file and --grpc-tls-key-file (CRAWL_GRPC_TLS_CA_FILE, _CERT_FILE, _KEY_FILE)",
    );
  if (Boolean(values.httpTlsCertFile) !== Boolean(values.httpTlsKeyFile))
    problems.push("httpTlsCertFile: --http-tls-cert-file and --http-tls-key-file (CRAWL_HTTP_TLS_CERT_FILE, _KEY_FILE) go together");
  return problems;
}
