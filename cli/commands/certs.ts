/**
 * `crawlctl certs init` and `crawlctl certs node`: a private CA and node certificates for a test or a small
 * fleet, made in plain JavaScript (kit/tls; no openssl needed), in the directory layout the fleet's secret
 * store uses (DIR/ca.pem, DIR/<id>.pem, DIR/<id>.key; keys mode 0600). A node certificate names the node's
 * role and id (`crawler://<role>/<id>`), which frontier nodes check before answering, and the hosts it is
 * reached at. Each command prints what it wrote and the settings that use it.
 */
import { integerKind, readConfig, stringKind, tableRows, type Env, type FieldSpecs } from "../../core/config/index.ts";
import { IDENTITY_ROLES, type IdentityRole } from "../../core/auth/index.ts";
import { initAuthority, issueNodeFiles, type NodeFiles } from "../../kit/tls/index.ts";
import { UsageError, type CliIo } from "../io.ts";

export interface CertsFlags {
  dir: string;
  role: string;
  id: string;
  hosts: string;
  days: number;
}

const SPECS: FieldSpecs<CertsFlags> = {
  dir: {
    default: "",
    env: "CRAWLCTL_CERTS_DIR",
    flag: "--dir",
    description: "Directory of the CA (ca.pem, ca.key) and of the node certificates (<id>.pem, <id>.key)",
    ...stringKind("dir"),
  },
  role: {
    default: "",
    env: "",
    flag: "--role",
    description: `Role the certificate names (certs node): ${IDENTITY_ROLES.join(", ")}`,
    ...stringKind("role"),
  },
  id: {
    default: "",
    env: "",
    flag: "--id",
    description: "Node id the certificate names, and the name of its files (certs node)",
    ...stringKind("id"),
  },
  hosts: {
    default: "127.0.0.1,localhost",
    env: "",
    flag: "--hosts",
    description: "Comma-separated host names and IP addresses the node is reached at (certs node)",
    ...stringKind("hosts"),
  },
  days: {
    default: 0,
    defaultText: "3650 for the CA, 825 for a node",
    env: "",
    flag: "--days",
    description: "Days the certificate is valid",
    ...integerKind({ min: 0, max: 36500 }),
  },
};

export const CERTS_FIELDS = tableRows(SPECS);

function parse(argv: readonly string[], env: Env, own: readonly (keyof CertsFlags)[]): CertsFlags {
  const rows = CERTS_FIELDS.filter((row) => own.includes(row.field));
  const read = readConfig(argv, env, rows, { unknown: (_arg, name) => `unknown option ${name}` });
  if (read.problems.length > 0) throw new UsageError(read.problems.join("; "), read.problems);
  if (!read.values.dir) throw new UsageError("no directory: give --dir DIR (or set CRAWLCTL_CERTS_DIR)");
  return read.values;
}

/** `certs init --dir DIR [--days N]` */
export function certsInitCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const flags = parse(argv, env, ["dir", "days"]);
    const files = await initAuthority(flags.dir, flags.days ? { validDays: flags.days } : {});
    io.out(
      `wrote ${files.caFile} and ${files.keyFile}\n` +
        `  give ${files.caFile} to every node (CRAWL_GRPC_TLS_CA_FILE, CRAWL_NATS_TLS_CA_FILE, CRAWL_REDIS_TLS_CA_FILE) and to crawlctl (CRAWLCTL_TLS_CA_FILE)\n` +
        `  keep ${files.keyFile} off the nodes: whoever holds it can make any identity\n`,
    );
    return 0;
  };
}

/** `certs node --dir DIR --role ROLE --id ID [--hosts H,H] [--days N]` */
export function certsNodeCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const flags = parse(argv, env, ["dir", "role", "id", "hosts", "days"]);
    if (!(IDENTITY_ROLES as readonly string[]).includes(flags.role))
      throw new UsageError(`--role must be one of ${IDENTITY_ROLES.join(", ")}, got "${flags.role}"`);
    if (!flags.id) throw new UsageError("no node id: give --id ID");
    const hosts = flags.hosts
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    const identity = { role: flags.role as IdentityRole, id: flags.id };
    let files: NodeFiles;
    try {
      files = await issueNodeFiles(flags.dir, { identity, hosts, ...(flags.days ? { validDays: flags.days } : {}) });
    } catch (error) {
      // A bad id or host is the caller's mistake, and so is a directory without a CA.
      throw new UsageError((error as Error).message);
    }
    const { caFile, certFile, keyFile } = files;
    const use: Record<IdentityRole, string[]> = {
      coordinator: [`CRAWL_GRPC_TLS_CA_FILE=${caFile} CRAWL_GRPC_TLS_CERT_FILE=${certFile} CRAWL_GRPC_TLS_KEY_FILE=${keyFile}`],
      frontier: [`CRAWL_GRPC_TLS_CA_FILE=${caFile} CRAWL_GRPC_TLS_CERT_FILE=${certFile} CRAWL_GRPC_TLS_KEY_FILE=${keyFile}`],
      fetch: [],
      nats: [`nats-server: tls { cert_file: "${certFile}", key_file: "${keyFile}", ca_file: "${caFile}" }`],
      redis: [`redis-server: --tls-cert-file ${certFile} --tls-key-file ${keyFile} --tls-ca-cert-file ${caFile}`],
    };
    if (identity.role === "coordinator" || identity.role === "frontier" || identity.role === "fetch")
      use[identity.role].push(`HTTPS listener: CRAWL_HTTP_TLS_CERT_FILE=${certFile} CRAWL_HTTP_TLS_KEY_FILE=${keyFile}`);
    io.out(
      `wrote ${certFile} and ${keyFile} (crawler://${identity.role}/${identity.id}; ${hosts.join(", ")})\n${use[identity.role].map((l) => `  ${l}\n`).join("")}`,
    );
    return 0;
  };
}
