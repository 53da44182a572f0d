/**
 * Every process the project ships (crawl, crawl stats, crawlctl, cluster up, coordinator, frontier node,
 * fetch node) is started by the same kit: `--help` prints every row of its configuration table (flag and
 * env var) on stdout and exits 0, and a bad value, given by flag or by env var, prints the problem (naming
 * where it came from) and the usage on stderr and exits 2, before anything is started. Run as real child
 * processes with a hermetic environment.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { POLICY_FIELDS, type AnyFieldRow } from "../../core/config/index.ts";
import { COORDINATOR_FIELDS, COORDINATOR_SECURITY_FIELDS } from "../../coordinator/config.ts";
import { CRAWL_FIELDS } from "../../embedded/config.ts";
import { STATS_FIELDS } from "../../embedded/stats.ts";
import { FETCH_NODE_FIELDS, FETCH_NODE_SECURITY_FIELDS } from "../../fetch-node/config.ts";
import { FRONTIER_NODE_FIELDS, FRONTIER_NODE_SECURITY_FIELDS } from "../../frontier-node/node/config.ts";
import { CLUSTER_UP_FIELDS } from "../../scripts/cluster/main.ts";

const REPO = resolve(import.meta.dir, "../..");
const HERMETIC_DROP = /^(https?_proxy|no_proxy|all_proxy|CRAWL_.*|CRAWLCTL_.*)$/i;

function run(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !HERMETIC_DROP.test(k)));
  const r = spawnSync("bun", args, { cwd: REPO, env: { ...base, ...env }, encoding: "utf8", timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const rowsOf = (...tables: ReadonlyArray<readonly AnyFieldRow[]>) => tables.flat();

/** crawlctl's cluster flags (nothing imports the command line, so its table is not read here). */
const CRAWLCTL_SEED_ADD = [
  { flag: "--coordinator", env: "CRAWLCTL_COORDINATOR" },
  { flag: "--token", env: "CRAWLCTL_TOKEN" },
  { flag: "--tls-ca-file", env: "CRAWLCTL_TLS_CA_FILE" },
  { flag: "--json", env: "" },
  { flag: "--file", env: "" },
];

const PROCESSES: Array<{ name: string; args: string[]; rows: ReadonlyArray<{ flag: string; env: string }> }> = [
  { name: "crawl", args: ["embedded/main.ts"], rows: rowsOf(CRAWL_FIELDS, POLICY_FIELDS) },
  { name: "crawl stats", args: ["embedded/main.ts", "stats"], rows: STATS_FIELDS },
  { name: "coordinator", args: ["coordinator/main.ts"], rows: rowsOf(COORDINATOR_FIELDS, COORDINATOR_SECURITY_FIELDS) },
  {
    name: "frontier-node",
    args: ["frontier-node/main.ts"],
    rows: rowsOf(FRONTIER_NODE_FIELDS, FRONTIER_NODE_SECURITY_FIELDS, POLICY_FIELDS),
  },
  { name: "fetch-node", args: ["fetch-node/main.ts"], rows: rowsOf(FETCH_NODE_FIELDS, FETCH_NODE_SECURITY_FIELDS) },
  { name: "cluster up", args: ["scripts/cluster/main.ts", "up"], rows: CLUSTER_UP_FIELDS },
  {
    name: "crawlctl seed add",
    args: ["cli/main.ts", "seed", "add"],
    rows: CRAWLCTL_SEED_ADD,
  },
];

describe("every process", () => {
  test("--help prints every flag of the process's table with its env var, on stdout, and exits 0", () => {
    for (const p of PROCESSES) {
      const { code, stdout, stderr } = run([...p.args, "--help"]);
      const missing = p.rows.filter((row) => !stdout.includes(`${row.flag} `) || (row.env !== "" && !stdout.includes(`env ${row.env}`)));
      expect({ process: p.name, code, missing: missing.map((r) => r.flag), stderr }).toEqual({
        process: p.name,
        code: 0,
        missing: [],
        stderr: "",
      });
    }
  }, 60_000);

  test("a bad value, by flag or by env var, is named with where it came from, with the usage, and the exit code is 2", () => {
    const cases: Array<{ name: string; args: string[]; env?: Record<string, string>; says: string }> = [
      {
        name: "crawl",
        args: ["embedded/main.ts", "--out", "/nonexistent/x"],
        env: { CRAWL_MAX_PAGES: "0" },
        says: "from env CRAWL_MAX_PAGES",
      },
      {
        name: "crawl",
        args: ["embedded/main.ts", "--out", "/nonexistent/x", "--fetch-threads", "many"],
        says: "from flag --fetch-threads",
      },
      { name: "coordinator", args: ["coordinator/main.ts"], env: { CRAWL_LOG_FORMAT: "yaml" }, says: "from env CRAWL_LOG_FORMAT" },
      { name: "frontier-node", args: ["frontier-node/main.ts", "--credit", "0"], says: "from flag --credit" },
      { name: "fetch-node", args: ["fetch-node/main.ts"], env: { CRAWL_FETCH_CONCURRENCY: "0" }, says: "from env CRAWL_FETCH_CONCURRENCY" },
      {
        name: "frontier-node",
        args: ["frontier-node/main.ts", "--grpc-tls-cert-file", "/etc/node.pem"],
        says: "gRPC TLS needs all three of --grpc-tls-ca-file, --grpc-tls-cert-file and --grpc-tls-key-file",
      },
      {
        name: "fetch-node",
        args: ["fetch-node/main.ts", "--redis-url", "redis://127.0.0.1:1"],
        env: { CRAWL_REDIS_TLS_CA_FILE: "/etc/ca.pem", CRAWL_NATS_USER: "fetch" },
        says: "--nats-user and --nats-password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD) go together",
      },
      { name: "cluster", args: ["scripts/cluster/main.ts", "up", "--frontiers", "0"], says: "from flag --frontiers" },
      {
        name: "crawlctl",
        args: ["cli/main.ts", "status", "--coordinator", "127.0.0.1:1", "--interval", "0"],
        says: "from flag --interval",
      },
    ];
    for (const c of cases) {
      const { code, stdout, stderr } = run(c.args, c.env);
      expect({
        process: c.name,
        code,
        stdout,
        says: stderr.includes(c.says),
        startsWithName: stderr.startsWith(`${c.name}: `),
        usage: stderr.includes("\nusage: "),
      }).toEqual({
        process: c.name,
        code: 2,
        stdout: "",
        says: true,
        startsWithName: true,
        usage: true,
      });
    }
  }, 60_000);
});
