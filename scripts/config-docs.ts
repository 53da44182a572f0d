/**
 * Writes docs/configuration.md, every flag and env var of every process, from the configuration tables the
 * processes themselves parse with, so the document cannot drift from the code. `--check` fails when the
 * committed document differs from what the tables say (CI runs it).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultText, POLICY_FIELDS, type AnyFieldRow } from "../core/config/index.ts";
import { CLUSTER_FIELDS } from "../cli/cluster/options.ts";
import { COORDINATOR_FIELDS } from "../coordinator/config.ts";
import { CRAWL_FIELDS } from "../embedded/config.ts";
import { STATS_FIELDS } from "../embedded/stats.ts";
import { CLUSTER_UP_FIELDS } from "./cluster/main.ts";
import { FETCH_NODE_FIELDS } from "../fetch-node/config.ts";
import { FRONTIER_NODE_FIELDS } from "../frontier-node/node/config.ts";
import { S3_UPLOAD_SETTINGS } from "../adapters/s3/index.ts";
import { WARC_ROLL_SETTINGS } from "../engine/fetch/index.ts";
import { GRPC_TLS_SETTINGS, HTTP_TLS_SETTINGS, NATS_ACCESS_SETTINGS, REDIS_TLS_SETTINGS } from "../kit/tls/index.ts";
import { CERTS_FIELDS } from "../cli/commands/index.ts";

interface Row {
  flag: string;
  env: string;
  default: string;
  description: string;
}

const out = join(import.meta.dir, "..", "docs", "configuration.md");

function table(rows: Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    "| flag | env var | default | what it does |",
    "| --- | --- | --- | --- |",
    ...rows.map((r) => `| \`${r.flag}\` | ${r.env ? `\`${r.env}\`` : "-"} | ${esc(r.default) || "-"} | ${esc(r.description)} |`),
  ].join("\n");
}

function fromTable(fields: readonly AnyFieldRow[]): Row[] {
  return fields.map((f) => ({ flag: f.flag, env: f.env, description: f.description, default: defaultText(f) }));
}

const policy = fromTable(POLICY_FIELDS);
const crawl = fromTable(CRAWL_FIELDS);

const text = `# Configuration

Every flag and environment variable of every process, generated from the tables the processes parse
with (\`bun run docs:config\`; CI fails when this file is stale). A flag wins over its env var, which wins
over the default. Every process also prints its own table with \`--help\`.

Every process starts and stops the same way (\`kit/main\`): a bad flag or env var prints the problems and
the usage and exits 2; a failure to start exits 1 with a line saying what to do; the first SIGINT or
SIGTERM stops it cleanly and a second exits at once (130). Log lines go to stderr as JSON, or as text
when stderr is a terminal (\`--log-format\`, \`CRAWL_LOG_FORMAT\`, in every table below).

## Crawl policy (\`crawl\`, every cluster role)

The policy table of ARCHITECTURE.md. \`crawl\` and frontier nodes read all of it; fetch nodes read the
fetching part (timeouts, body cap, user agent) and the address rules; the coordinator reads the address
rules, to refuse seeds. Every role accepts every policy flag, so one set of flags serves a whole fleet.
The address rules (\`--allow-private-addresses\`, \`--allow-addresses\`, \`--deny-addresses\`,
\`--deny-hosts\`) are checked at admission and at fetch time, with or without a proxy; without a proxy
also on every address a name resolves to (README, "Security"). The scope and filter rules (\`--scope\`,
\`--max-depth\`, \`--allow-hosts\`, \`--allow-urls\`, \`--deny-urls\`, \`--deny-extensions\`,
\`--scope-file\`) and \`--sitemaps\` are the frontier's: \`crawl\` and frontier nodes apply them at
admission (README, "Sitemaps, scope and filters"); a scope file must be readable by every frontier node.

${table(policy)}

## \`crawl\` (embedded mode)

\`bun run crawl [URL...] [--seeds FILE] --out DIR [options]\`, plus every policy flag above and the WARC
table below.

${table(crawl)}

\`bun run crawl stats --out DIR\` prints what an output directory holds:

${table(fromTable(STATS_FIELDS))}

## WARC files and their upload (\`crawl\` and fetch nodes)

Both read this table besides their own. Without \`--warc-upload\` files stay on local disk; with it, each
finished WARC file and its CDXJ index go to \`s3://bucket/prefix/<file name>\`, and the local copy is
deleted once the store confirms it. The credential variables are the usual AWS ones.

${table(fromTable([...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS]))}

## TLS and authentication (every cluster role)

Each link is plain text unless its files are given; \`cluster up --secure\` gives them all (README,
"Security"). Files are PEM, read and checked at start (a certificate not signed by the CA, expired, not
matching its key or naming another role stops the process with exit 1 and a line naming the file).

NATS (coordinator, frontier and fetch nodes): the role's user, whose permissions allow only the role's
subjects (\`core/cluster/nats-permissions.ts\`), and the CA of the servers' certificates.

${table(fromTable(NATS_ACCESS_SETTINGS))}

Redis (frontier and fetch nodes): the ACL user and password go in \`--redis-url\`
(\`rediss://crawler:PASSWORD@host:port\`); TLS with a \`rediss://\` URL, checked against this CA.

${table(fromTable(REDIS_TLS_SETTINGS))}

gRPC (coordinator and frontier nodes): TLS with the cluster's CA and the node's own certificate, which names
its role and id (\`crawlctl certs node\`). A frontier node asks callers for a certificate of the CA and
answers only coordinator and frontier certificates; the coordinator asks none (crawlctl sends the token).

${table(fromTable(GRPC_TLS_SETTINGS))}

HTTPS (every role's HTTP listener: the coordinator's admin API, every node's /healthz, /readyz, /metrics):

${table(fromTable(HTTP_TLS_SETTINGS))}

## Coordinator

\`bun run coordinator [flags]\`, plus every policy flag above (it uses the address rules) and the NATS, gRPC
and HTTPS rows of "TLS and authentication".

${table(fromTable(COORDINATOR_FIELDS))}

## Frontier node

\`bun run frontier-node [flags]\`, plus every policy flag above and every row of "TLS and authentication".

${table(fromTable(FRONTIER_NODE_FIELDS))}

## Fetch node

\`bun run fetch-node [flags]\`, or on Deno (see fetch-node/README.md for the permissions), plus the
fetching and address policy flags, the WARC table above, and the NATS, Redis and HTTPS rows of "TLS and
authentication".

${table(fromTable(FETCH_NODE_FIELDS))}

## \`crawlctl\` cluster commands

\`bun run crawlctl COMMAND [options] [ARGS]\`; \`--watch\` and \`--interval\` belong to \`status\`, \`--file\` and \`--feeds\` to
\`seed add\`. The offline commands (\`robots check\`, \`robots status\`, \`url normalize\`) take only their
own arguments (\`crawlctl COMMAND --help\`).

${table(fromTable(CLUSTER_FIELDS))}

\`crawlctl certs init --dir DIR\` makes a private CA (\`DIR/ca.pem\`, \`DIR/ca.key\`); \`crawlctl certs node --dir DIR
--role ROLE --id ID --hosts H,H\` makes \`DIR/ID.pem\` and \`DIR/ID.key\`, signed by it, naming
\`crawler://ROLE/ID\` (roles: coordinator, frontier, fetch, nats, redis).

${table(fromTable(CERTS_FIELDS))}

## \`cluster up\` (a local cluster)

\`bun run cluster up [options] [-- FRONTIER-NODE FLAGS...]\`

${table(fromTable(CLUSTER_UP_FIELDS))}
`;

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(out, "utf8");
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error("docs/configuration.md is stale; run `bun run docs:config`");
    process.exit(1);
  }
  console.log("docs/configuration.md is up to date");
} else {
  writeFileSync(out, text);
  console.log("wrote docs/configuration.md");
}
