/**
 * The fleet module with TLS on, started for real: a private CA and a node certificate made with openssl,
 * the rendered NATS servers of two regions (routes and gateways verifying each other's certificates) and
 * the rendered Redis (TLS only) booted on 127.0.0.1. Clients get in over TLS with their role's password,
 * and plain-text clients are refused at the TLS handshake.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as connectTls } from "node:tls";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, type NatsConnection } from "../../adapters/nats/index.ts";
import { natsServerBinary } from "../support/nats.ts";
import { loopbackOverrides, nodeIds, provisionMachine, startProcess, type RunningProcess } from "./support/loopback-fleet.ts";
import { renderFleet, type FleetOutput } from "./support/terraform.ts";

const REGIONS = { "us-east-1": { nats: 3, frontier: 1, fetch: 1 }, "eu-west-1": { nats: 1, frontier: 1, fetch: 1 } };
const SECRETS = {
  admin_token: "tls/admin-token",
  redis_password: "tls/redis",
  nats_coordinator_password: "tls/nats-coordinator",
  nats_frontier_password: "tls/nats-frontier",
  nats_fetch_password: "tls/nats-fetch",
  nats_system_password: "tls/nats-system",
};
const VALUES: Record<string, string> = Object.fromEntries(Object.values(SECRETS).map((name) => [name, `v-${crypto.randomUUID()}`]));

let root: string;
let tls: { ca_file: string; cert_file: string; key_file: string };
let fleet: FleetOutput;
const running: RunningProcess[] = [];
const connections: NatsConnection[] = [];

function openssl(args: string[]): void {
  const r = spawnSync("openssl", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

/** A CA and one certificate for 127.0.0.1, good as server and as client (NATS routes and gateways verify both ways). */
function makeCertificates(dir: string): typeof tls {
  mkdirSync(dir, { recursive: true });
  const p = (f: string) => join(dir, f);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...ec, "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "1", "-subj", "/CN=fleet test CA"]);
  openssl(["req", ...ec, "-keyout", p("node.key"), "-out", p("node.csr"), "-subj", "/CN=fleet test node"]);
  writeFileSync(p("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  openssl([
    "x509",
    "-req",
    "-in",
    p("node.csr"),
    "-CA",
    p("ca.pem"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-out",
    p("node.pem"),
    "-days",
    "1",
    "-extfile",
    p("ext.cnf"),
  ]);
  return { ca_file: p("ca.pem"), cert_file: p("node.pem"), key_file: p("node.key") };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fleet-tls-"));
  tls = makeCertificates(join(root, "tls"));
  fleet = renderFleet({
    fleet: {
      name: "test",
      crawler_version: "test",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: "us-east-1",
      control_region: "us-east-1",
      coordinators: 1,
      regions: { "us-east-1": REGIONS["us-east-1"], "eu-west-1": { ...REGIONS["eu-west-1"], host_suffixes: [".de"] } },
    },
    secrets: SECRETS,
    security: { tls: { enabled: true, ...tls } },
    paths: { nats_server: natsServerBinary(), redis: process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server" },
    listen_host: "127.0.0.1",
    machine_overrides: await loopbackOverrides(nodeIds(1, REGIONS), root),
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await Promise.all(running.map((p) => p.stop()));
  if (root) rmSync(root, { recursive: true, force: true });
});

test("fleet TLS - the NATS servers verify each other on routes and gateways, and clients get in over TLS only", async () => {
  const ids = Object.keys(fleet.nats_configs).sort();
  const servers = ids.map((id) => {
    const m = fleet.machines[id]!;
    const env = provisionMachine(m, VALUES);
    const check = spawnSync(m.argv[0]!, [...m.argv.slice(1), "-t"], { encoding: "utf8", env: { ...process.env, ...env } });
    expect({ id, code: check.status, out: `${check.stdout}${check.stderr}` }).toMatchObject({ id, code: 0 });
    const p = startProcess(m.argv, { ...m.env, ...env }, m.working_dir);
    running.push(p);
    return p;
  });
  await Promise.all(servers.map((s, i) => s.waitFor(/Server is ready/, 20_000, `${ids[i]} ready`)));
  await Promise.all(
    ids.map((id, i) => {
      const other = fleet.machines[id]!.region === "us-east-1" ? "eu-west-1" : "us-east-1";
      return servers[i]!.waitFor(
        new RegExp(`Outbound gateway connection to "${other}"[^\\n]*registered`),
        30_000,
        `${id} TLS gateway to ${other}`,
      );
    }),
  );
  for (const s of servers) expect(s.log()).not.toMatch(/TLS handshake error/);

  const coordinator = fleet.machines["coordinator-1"]!;
  const password = provisionMachine(coordinator, VALUES)["CRAWL_NATS_PASSWORD"];
  expect(coordinator.env["CRAWL_NATS_TLS_CA_FILE"]).toBe(tls.ca_file);
  const nc = await connectNats(coordinator.env["CRAWL_NATS_URL"]!.split(","), "tls probe", {
    user: "coordinator",
    pass: password,
    tls: { caFile: coordinator.env["CRAWL_NATS_TLS_CA_FILE"] },
  });
  connections.push(nc);
  // No API check here: the loop below waits for JetStream (a metadata leader is still being elected
  // when the gateways are up, and the check would time out once instead of waiting).
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const deadline = Date.now() + 60_000;
  let ok = false;
  while (!ok && Date.now() < deadline) {
    ok = await jsm.getAccountInfo().then(
      () => true,
      () => false,
    );
    if (!ok) await new Promise((r) => setTimeout(r, 100));
  }
  expect(ok).toBe(true);
  // nats.js turns to TLS whenever the server's INFO says tls_required, so a client without the CA is
  // refused at the certificate, and connectNats says so (any other failure, a server down among them,
  // would not match).
  const first = new URL(coordinator.env["CRAWL_NATS_URL"]!.split(",")[0]!);
  await expect(
    connectNats(first.href, "no CA", {
      user: "coordinator",
      pass: password,
      maxReconnectAttempts: 0,
      waitOnFirstConnect: false,
    }),
  ).rejects.toThrow(/TLS certificate was not accepted/);
  // A client that stays in plain text: the server's INFO requires TLS, and the CONNECT and PING sent in
  // the clear end the connection at the TLS handshake, unanswered.
  const at = ids.findIndex((id) => fleet.machines[id]!.ports["client"] === Number(first.port));
  expect(at).toBeGreaterThanOrEqual(0);
  const connect = JSON.stringify({ user: "coordinator", pass: password, verbose: false, pedantic: false });
  const plain = await plainTextAttempt(Number(first.port), [`CONNECT ${connect}`, "PING"]);
  expect(plain.error).toBeUndefined();
  // Only the INFO line came back (no +OK, no PONG, no -ERR).
  expect(plain.read).toMatch(/^INFO [^\r\n]*\r\n$/);
  expect(JSON.parse(plain.read.slice("INFO ".length))).toMatchObject({ tls_required: true });
  await servers[at]!.waitFor(/TLS handshake error/, 5_000, `${ids[at]} refuses a plain-text client`);
}, 120_000);

/**
 * Connects in plain text, sends `lines` as soon as the connection is open, and resolves once the server
 * ends the connection: with what it sent (text) and how it ended. A connection that could not be made
 * (refused, nothing listening) resolves with its `error` code.
 */
function plainTextAttempt(port: number, lines: string[]): Promise<{ read: string; end: "closed" | "reset" | "error"; error?: string }> {
  return new Promise((resolve) => {
    let read = "";
    let opened = false;
    const sock = connectTcp(port, "127.0.0.1", () => {
      opened = true;
      sock.write(lines.map((l) => `${l}\r\n`).join(""));
    });
    sock.setTimeout(10_000, () => sock.destroy(new Error("the server kept the plain-text connection open for 10 s")));
    sock.on("data", (d) => (read += d.toString()));
    sock.on("error", (e: NodeJS.ErrnoException) => {
      if (opened && e.code === "ECONNRESET") resolve({ read, end: "reset" });
      else resolve({ read, end: "error", error: e.code ?? e.message });
    });
    sock.on("close", () => resolve({ read, end: "closed" }));
  });
}

/** Sends RESP inline lines over `socket` once it is open and resolves with everything read until `lines` replies came. */
function converse(open: (onOpen: () => void) => import("node:net").Socket, commands: string[], lines: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = "";
    const sock = open(() => sock.write(commands.map((c) => `${c}\r\n`).join("")));
    sock.on("data", (d) => {
      text += d.toString();
      const got = text.split("\r\n").filter(Boolean);
      if (got.length >= lines) {
        resolve(got);
        sock.destroy();
      }
    });
    sock.on("error", reject);
    sock.on("close", () => resolve(text.split("\r\n").filter(Boolean)));
  });
}

test("fleet TLS - Redis accepts TLS only, and the crawler user logs in over it", async () => {
  const m = fleet.machines["us-east-1-redis-1"]!;
  expect(fleet.machines["us-east-1-frontier-1"]!.secret_env["CRAWL_REDIS_URL"]).toStartWith("rediss://");
  const env = provisionMachine(m, VALUES);
  const p = startProcess(m.argv, { ...m.env, ...env }, join(m.dirs.state, "redis"));
  running.push(p);
  await p.waitFor(/Ready to accept connections/, 20_000, "redis ready");
  const port = m.ports["redis"]!;
  const ca = readFileSync(tls.ca_file);
  const replies = await converse(
    (onOpen) => connectTls({ host: "127.0.0.1", port, ca, servername: "localhost" }, onOpen),
    [`AUTH crawler ${VALUES["tls/redis"]}`, "PING"],
    2,
  );
  expect(replies).toEqual(["+OK", "+PONG"]);
  // A plain-text client is dropped (reset or closed) at the TLS handshake, without a byte of answer; a
  // connection that could not be made at all, or one answered in plain text, fails here.
  const plain = await plainTextAttempt(port, ["PING"]);
  expect(plain).toMatchObject({ read: "", end: expect.stringMatching(/^(closed|reset)$/) });
  await p.waitFor(/Error accepting a client connection: .*SSL routines/, 5_000, "redis refuses a plain-text client at the handshake");
}, 60_000);
