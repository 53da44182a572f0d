/**
 * nats-server and redis-server the way a secure cluster runs them, for tests: a private CA made in the
 * test (kit/tls), NATS with TLS for clients and one user per role whose permissions are core/cluster's
 * table, Redis over TLS only with the crawler's ACL user (and a default user whose password nobody knows).
 * Both on 127.0.0.1, ready on a condition, stopped and cleaned up by `stop()`.
 *
 *   const pki = await makePki(["frontier-1", "fetch-1"]);
 *   const nats = await startSecureNats({ pki, region: "region-1" });
 *   const redis = await startSecureRedis({ pki });
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as connectTls } from "node:tls";
import { REDIS_CRAWLER_ACL, REDIS_CRAWLER_USER, renderNatsAccounts, type NatsRole } from "../../core/cluster/index.ts";
import type { IdentityRole } from "../../core/auth/index.ts";
import { initAuthority, issueNodeFiles, type NodeFiles } from "../../kit/tls/index.ts";
import { startNats, type NatsServer } from "./nats.ts";
import { unusedPort } from "../../kit/net/index.ts";

/** A CA directory and the certificate files of each node made in it. */
export interface Pki {
  readonly dir: string;
  readonly caFile: string;
  /** By node id. */
  readonly nodes: Record<string, NodeFiles>;
  /** Issues one more certificate (127.0.0.1 and localhost). */
  issue(role: IdentityRole, id: string): Promise<NodeFiles>;
  remove(): void;
}

/** A CA in a temporary directory, and a certificate for each `role:id` (e.g. `frontier:frontier-1`). */
export async function makePki(identities: readonly string[] = []): Promise<Pki> {
  const dir = mkdtempSync(join(tmpdir(), "pki-"));
  const { caFile } = await initAuthority(dir);
  const nodes: Record<string, NodeFiles> = {};
  const issue = async (role: IdentityRole, id: string) => {
    nodes[id] = await issueNodeFiles(dir, { identity: { role, id }, hosts: ["127.0.0.1", "localhost"] });
    return nodes[id]!;
  };
  for (const entry of identities) {
    const [role, id] = entry.split(":");
    await issue(role as IdentityRole, id!);
  }
  return { dir, caFile, nodes, issue, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type NatsPasswords = Record<NatsRole | "system", string>;

export function randomPasswords(): NatsPasswords {
  const pw = () => crypto.randomUUID().replace(/-/g, "");
  return { coordinator: pw(), frontier: pw(), fetch: pw(), system: pw() };
}

export interface SecureNats extends NatsServer {
  readonly passwords: NatsPasswords;
  /** The env a role's process needs: its user, password and the CA. */
  envOf(role: NatsRole): Record<string, string>;
}

/** One JetStream nats-server with TLS for clients and the per-role users of core/cluster. */
export async function startSecureNats(opts: {
  pki: Pki;
  region: string;
  regions?: readonly string[];
  passwords?: NatsPasswords;
}): Promise<SecureNats> {
  const passwords = opts.passwords ?? randomPasswords();
  const server = await opts.pki.issue("nats", `nats-${opts.region}`);
  const dir = mkdtempSync(join(tmpdir(), "secure-nats-"));
  const conf = join(dir, "nats.conf");
  writeFileSync(
    conf,
    [
      `tls { cert_file: "${server.certFile}", key_file: "${server.keyFile}", ca_file: "${opts.pki.caFile}", timeout: 5 }`,
      renderNatsAccounts({ region: opts.region, regions: opts.regions ?? [opts.region], passwords }),
    ].join("\n"),
    { mode: 0o600 },
  );
  const nats = await startNats({ jetstream: true, args: ["-c", conf] });
  const stop = nats.stop;
  return Object.assign(nats, {
    passwords,
    envOf: (role: NatsRole) => ({
      CRAWL_NATS_USER: role,
      CRAWL_NATS_PASSWORD: passwords[role],
      CRAWL_NATS_TLS_CA_FILE: opts.pki.caFile,
    }),
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

export interface SecureRedis {
  /** rediss://crawler:<password>@127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** The env a role's process needs besides the URL: the CA. */
  readonly env: Record<string, string>;
  /** Everything the server wrote. */
  log(): string;
  stop(): Promise<void>;
}

/** A redis-server on a TLS port only, with the crawler's ACL user and a default user locked by an unknown password. */
export async function startSecureRedis(opts: { pki: Pki; password?: string }): Promise<SecureRedis> {
  const password = opts.password ?? crypto.randomUUID().replace(/-/g, "");
  const server = await opts.pki.issue("redis", `redis-${crypto.randomUUID().slice(0, 8)}`);
  // A port found free can be taken before the server binds it; another try picks another.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launchSecureRedis(opts.pki, server, password);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function launchSecureRedis(pki: Pki, server: NodeFiles, password: string): Promise<SecureRedis> {
  const dir = mkdtempSync(join(tmpdir(), "secure-redis-"));
  const port = await unusedPort();
  const conf = join(dir, "redis.conf");
  writeFileSync(
    conf,
    [
      "bind 127.0.0.1",
      "port 0",
      `tls-port ${port}`,
      `tls-cert-file ${server.certFile}`,
      `tls-key-file ${server.keyFile}`,
      `tls-ca-cert-file ${pki.caFile}`,
      "tls-auth-clients no",
      `dir ${dir}`,
      'save ""',
      "appendonly no",
      `user default on >${crypto.randomUUID()} ~* &* +@all`,
      `user ${REDIS_CRAWLER_USER} on >${password} ${REDIS_CRAWLER_ACL}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const child = spawn(process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server", [conf], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (/Ready to accept connections/.test(output)) break;
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server with TLS did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `rediss://${REDIS_CRAWLER_USER}:${password}@127.0.0.1:${port}`,
    port,
    password,
    env: { CRAWL_REDIS_TLS_CA_FILE: pki.caFile },
    log: () => output,
    stop: async () => {
      if (!exited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends RESP inline commands over TLS (trusting `caFile`) and resolves with the reply lines. */
export function redisTlsConverse(port: number, caFile: string, commands: readonly string[], replies: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connectTls({ host: "127.0.0.1", port, ca: readFileSync(caFile), servername: "localhost" }, () =>
      socket.write(commands.map((c) => `${c}\r\n`).join("")),
    );
    const done = () => {
      socket.destroy();
      resolve(text.split("\r\n").filter(Boolean));
    };
    socket.on("data", (d) => {
      text += d.toString();
      if (text.split("\r\n").filter(Boolean).length >= replies) done();
    });
    socket.on("error", reject);
    socket.on("close", done);
  });
}
