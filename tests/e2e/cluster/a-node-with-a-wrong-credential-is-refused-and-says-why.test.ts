/**
 * A node given a wrong credential does not start half-way: it stops at once, exit code 1, with one line
 * that says which credential is wrong and what to check. Real processes against a secure nats-server (TLS,
 * per-role users) and redis-server (TLS port, ACL user), with a CA made in the test: a wrong NATS password,
 * no NATS CA, a wrong Redis password, a gRPC certificate of another CA, a fetch node's certificate given to
 * a frontier node, a key that is not the certificate's. A node with the right ones starts (the control).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makePki, startSecureNats, startSecureRedis, type Pki, type SecureNats, type SecureRedis } from "../../support/secure-servers.ts";

const REPO = resolve(import.meta.dir, "../../..");
const REGION = "region-1";
let pki: Pki;
let otherPki: Pki;
let nats: SecureNats;
let redis: SecureRedis;
let scratch: string;

beforeAll(async () => {
  [pki, otherPki] = await Promise.all([makePki(["frontier:frontier-1", "fetch:fetch-1"]), makePki(["frontier:frontier-1"])]);
  nats = await startSecureNats({ pki, region: REGION });
  redis = await startSecureRedis({ pki });
  scratch = mkdtempSync(join(tmpdir(), "wrong-credential-"));
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  await nats?.stop();
  pki?.remove();
  otherPki?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Runs a role until it exits (or `untilLine` appears, for the control), with a hermetic CRAWL_* environment. */
async function run(
  script: string,
  env: Record<string, string>,
  untilLine?: RegExp,
): Promise<{ code: number | null; stderr: string; stopped: boolean }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CRAWL_|CRAWLCTL_)|_proxy$/i.test(k)));
  const proc = Bun.spawn(["bun", script], {
    cwd: REPO,
    env: { ...base, CRAWL_LOG_FORMAT: "text", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const reader = (async () => {
    const decoder = new TextDecoder();
    let signalled = false;
    for await (const chunk of proc.stderr) {
      stderr += decoder.decode(chunk);
      if (!signalled && untilLine?.test(stderr)) {
        signalled = true; // once: a second signal would mean "exit at once"
        proc.kill("SIGTERM");
      }
    }
  })();
  const killer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const code = await proc.exited;
  clearTimeout(killer);
  await reader;
  return { code, stderr, stopped: untilLine?.test(stderr) ?? false };
}

function frontierEnv(extra: Record<string, string> = {}): Record<string, string> {
  const f = pki.nodes["frontier-1"]!;
  return {
    CRAWL_NODE_ID: "frontier-1",
    CRAWL_REGION: REGION,
    CRAWL_DEFAULT_REGION: REGION,
    CRAWL_NATS_URL: nats.url,
    ...nats.envOf("frontier"),
    CRAWL_REDIS_URL: redis.url,
    ...redis.env,
    CRAWL_DATA_DIR: mkdtempSync(join(scratch, "frontier-")),
    CRAWL_GRPC_TLS_CA_FILE: pki.caFile,
    CRAWL_GRPC_TLS_CERT_FILE: f.certFile,
    CRAWL_GRPC_TLS_KEY_FILE: f.keyFile,
    CRAWL_PARTITIONS: "4",
    ...extra,
  };
}

function fetchEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CRAWL_NODE_ID: "fetch-1",
    CRAWL_REGION: REGION,
    CRAWL_DEFAULT_REGION: REGION,
    CRAWL_NATS_URL: nats.url,
    ...nats.envOf("fetch"),
    CRAWL_REDIS_URL: redis.url,
    ...redis.env,
    CRAWL_WARC_DIR: mkdtempSync(join(scratch, "warc-")),
    CRAWL_PARTITIONS: "4",
    ...extra,
  };
}

test("wrong credentials - each is refused at start, exit 1, with a line that names it", async () => {
  const other = otherPki.nodes["frontier-1"]!;
  const fetchCert = pki.nodes["fetch-1"]!;
  const cases: Array<{ name: string; script: string; env: Record<string, string>; says: string }> = [
    {
      name: "a wrong NATS password",
      script: "frontier-node/main.ts",
      env: frontierEnv({ CRAWL_NATS_PASSWORD: "not-the-password" }),
      says: `cannot connect to NATS at ${nats.url}: NATS refused user "frontier" (Authorization Violation): check the user and password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD)`,
    },
    {
      name: "no NATS CA",
      script: "fetch-node/main.ts",
      env: fetchEnv({ CRAWL_NATS_TLS_CA_FILE: "" }),
      says: "NATS server's TLS certificate was not accepted",
    },
    {
      name: "a wrong Redis password",
      script: "fetch-node/main.ts",
      env: fetchEnv({ CRAWL_REDIS_URL: redis.url.replace(redis.password, "not-the-password") }),
      says: "Redis refused the login (WRONGPASS",
    },
    {
      name: "a gRPC certificate of another CA",
      script: "frontier-node/main.ts",
      env: frontierEnv({ CRAWL_GRPC_TLS_CERT_FILE: other.certFile, CRAWL_GRPC_TLS_KEY_FILE: other.keyFile }),
      says: `cannot read the TLS files: CRAWL_GRPC_TLS_CERT_FILE ${other.certFile} is not signed by the CA in CRAWL_GRPC_TLS_CA_FILE ${pki.caFile}; peers would refuse it`,
    },
    {
      name: "a fetch node's certificate on a frontier node",
      script: "frontier-node/main.ts",
      env: frontierEnv({ CRAWL_GRPC_TLS_CERT_FILE: fetchCert.certFile, CRAWL_GRPC_TLS_KEY_FILE: fetchCert.keyFile }),
      says: "is the certificate of a fetch (crawler://fetch/fetch-1), not of a frontier",
    },
    {
      name: "a key that is not the certificate's",
      script: "frontier-node/main.ts",
      env: frontierEnv({ CRAWL_GRPC_TLS_KEY_FILE: fetchCert.keyFile }),
      says: `CRAWL_GRPC_TLS_KEY_FILE ${fetchCert.keyFile} is not the private key of CRAWL_GRPC_TLS_CERT_FILE`,
    },
  ];
  const results = await Promise.all(cases.map(async (c) => ({ c, r: await run(c.script, c.env) })));
  for (const { c, r } of results) {
    expect({ case: c.name, code: r.code, says: r.stderr.includes(c.says) ? c.says : r.stderr }).toEqual({
      case: c.name,
      code: 1,
      says: c.says,
    });
  }
}, 120_000);

test("wrong credentials - with the right ones the same nodes start (the control)", async () => {
  const frontier = await run("frontier-node/main.ts", frontierEnv(), /frontier node started/);
  expect({
    stopped: frontier.stopped,
    code: frontier.code,
    security:
      /security nats="TLS, user frontier" grpc="TLS, certificate of crawler:\/\/frontier\/frontier-1" .*redis="TLS \(given CA\)"/.test(
        frontier.stderr,
      ),
  }).toEqual({
    stopped: true,
    code: 0,
    security: true,
  });
  const fetcher = await run("fetch-node/main.ts", fetchEnv(), /ready/);
  expect({ stopped: fetcher.stopped, code: fetcher.code }).toEqual({ stopped: true, code: 0 });
}, 120_000);
