/**
 * The deploy contract, end to end: the fleet module applied offline for a two-region fleet, and exactly
 * what it rendered booted on this machine (deploy/terraform/README.md, "the deploy contract"). Each
 * machine gets 127.0.0.1, its own ports and its own directories through the module's override inputs
 * (`listen_host`, `machine_overrides`, `paths`); nothing else is changed. Its files are written where the
 * fleet put them, its secrets come from its rendered `load-secrets`, and its process is started with the
 * rendered argv and environment (what its systemd unit's ExecStart and EnvironmentFiles give it; run
 * directly, not through systemd). A rendered file that would not start a real process fails the test.
 *
 * The fleet: us-east-1 (the default and control region: the coordinator, Bun fetch nodes) and eu-west-1
 * (hosts by suffix rule, Deno fetch nodes), each with one NATS server (joined by gateways), one Redis, one
 * frontier node and one fetch node. It crawls the test web (reached through its proxy mode, the fleet's
 * `proxy` setting) and uploads WARC files to an S3 server on loopback (`warc_upload`, its endpoint, and
 * the credentials as named secrets, the way the rendered placeholders say). Judged from outside: the test
 * web's request log (every page once, zero politeness violations at tolerance 0, the fleet's User-Agent),
 * the bucket (each region's WARC files under its prefix hold exactly its own hosts' pages, written by its
 * own fetch node), and the NATS servers (each region's streams live in its own cluster).
 *
 * Secure, as a fleet runs: per-role NATS users (`security.nats_auth`, the default) and TLS on every link
 * (`security.tls` with a `secret_prefix`): NATS clients over TLS with their role's password, Redis on its
 * TLS port as the crawler's ACL user, gRPC over mutual TLS, the admin API and every /metrics over HTTPS.
 * Each machine has its own certificate, naming its role and node id (made here by kit/tls, as `crawlctl
 * certs node` makes them), put in the file-backed secret store under the prefix, fetched by its rendered
 * load-secrets into its own TLS directory (`machine_overrides.tls_dir`: every machine on one host). The
 * rendered fleet must leave nothing pending (`pending_process_settings` empty).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats } from "../../adapters/nats/index.ts";
import { createAuthority, issueNodeCertificate, type CertificateAndKey } from "../../kit/tls/index.ts";
import { parseRegionRules, regionOf } from "../../core/cluster/index.ts";
import { readBucketWarcs, repeatedRecordIds } from "../support/bucket-warcs.ts";
import { natsServerBinary } from "../support/nats.ts";
import { startS3, type S3Server } from "../support/s3.ts";
import { startTestWeb, type TestWeb } from "../testweb/index.ts";
import { fetchCounts, missing, pageRequests, repeated } from "../e2e/embedded/harness.ts";
import { loopbackOverrides, nodeIds, provisionMachine, startAsUnit, type RunningProcess } from "./support/loopback-fleet.ts";
import { REPO_ROOT, renderFleet, type FleetMachine, type FleetOutput } from "./support/terraform.ts";

const US = "us-east-1";
const EU = "eu-west-1";
const REGIONS = { [US]: { nats: 1, frontier: 1, fetch: 1 }, [EU]: { nats: 1, frontier: 1, fetch: 1 } };
/** Host-suffix rules: the odd test-web hosts are crawled from eu-west-1, the others from us-east-1. */
const EU_HOSTS = ["site1.test", "site3.test", "site5.test"];
const USER_AGENT = "FleetE2EBot/1.0 (+http://bot-info.test/fleet)";
const MIN_GAP_MS = 500;
const PARTITIONS = 8;
const BUCKET_PREFIX = "fleet-warc";
const TLS_PREFIX = "e2e/tls";

const SECRETS = {
  admin_token: "e2e/admin-token",
  redis_password: "e2e/redis",
  nats_coordinator_password: "e2e/nats-coordinator",
  nats_frontier_password: "e2e/nats-frontier",
  nats_fetch_password: "e2e/nats-fetch",
  nats_system_password: "e2e/nats-system",
  warc_access_key_id: "e2e/warc-key-id",
  warc_secret_access_key: "e2e/warc-secret-key",
};
/** Values in the file-backed secret store. The WARC secret key looks like an AWS one (+ and /). */
const VALUES: Record<string, string> = {
  ...Object.fromEntries(Object.values(SECRETS).map((name) => [name, `${name.replace(/\W/g, "-")}-${crypto.randomUUID()}`])),
  "e2e/warc-key-id": "S3RVER",
  "e2e/warc-secret-key": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};

let root: string;
let web: TestWeb;
let s3: S3Server;
let fleet: FleetOutput;
let ca: CertificateAndKey;
/** Each machine's certificate and key, by node id; the fleet's secret store holds them under TLS_PREFIX. */
const certificates = new Map<string, CertificateAndKey>();
const running = new Map<string, RunningProcess>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fleet-crawl-"));
  [web, s3] = await Promise.all([startTestWeb({ hosts: 6, pagesPerHost: 5, linksPerPage: 6, pageBytes: 3000 }), startS3()]);
  const ids = nodeIds(1, REGIONS);
  ca = await createAuthority();
  for (const [id, role] of ids)
    certificates.set(id, await issueNodeCertificate(ca, { identity: { role, id }, hosts: ["127.0.0.1", "localhost"] }));
  const overrides = (await loopbackOverrides(ids, root)) as Record<string, Record<string, unknown>>;
  for (const id of ids.keys()) overrides[id] = { ...overrides[id], tls_dir: join(root, id, "tls") };
  fleet = renderFleet({
    fleet: {
      name: "e2e",
      crawler_version: "e2e",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: US,
      control_region: US,
      coordinators: 1,
      partitions: PARTITIONS,
      regions: {
        [US]: { ...REGIONS[US], fetch_runtime: "bun" },
        [EU]: { ...REGIONS[EU], fetch_runtime: "deno", host_suffixes: EU_HOSTS },
      },
      policy: { CRAWL_USER_AGENT: USER_AGENT, CRAWL_MIN_GAP: `${MIN_GAP_MS}ms` },
      proxy: web.proxyUrl,
      allow_private_addresses: true,
      warc_upload: `s3://${s3.bucket}/${BUCKET_PREFIX}`,
      warc_upload_endpoint: s3.endpoint,
      warc_upload_region: "{region}",
    },
    secrets: SECRETS,
    security: { tls: { enabled: true, secret_prefix: TLS_PREFIX } },
    paths: {
      install_dir: REPO_ROOT,
      bun: process.execPath,
      deno: binaryOnPath("deno"),
      nats_server: natsServerBinary(),
      redis: process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server",
    },
    listen_host: "127.0.0.1",
    machine_overrides: overrides,
  });
}, 180_000);

afterAll(async () => {
  // Crawler processes first (they would otherwise log lost connections), then the servers; SIGKILL after
  // 20 s, not the frontier unit's TimeoutStopSec (its drain budget: ExecStop is not run here).
  const order: FleetMachine["role"][] = ["fetch", "frontier", "coordinator", "redis", "nats"];
  for (const role of order) {
    await Promise.all([...running].filter(([id]) => fleet?.machines[id]?.role === role).map(([, p]) => p.stop(20_000)));
  }
  await Promise.all([web?.close(), s3?.stop()]);
  if (root) rmSync(root, { recursive: true, force: true });
}, 120_000);

function binaryOnPath(name: string): string {
  const found = Bun.which(name);
  if (!found) throw new Error(`${name} is not on PATH: this test runs the rendered Deno fetch nodes with it`);
  return found;
}

const machinesOf = (role: FleetMachine["role"]) =>
  Object.entries(fleet.machines)
    .filter(([, m]) => m.role === role)
    .sort(([a], [b]) => a.localeCompare(b));

/**
 * Provisions a machine (its files, its secrets through its load-secrets) and starts it as its unit would,
 * below this process's CPU priority. The judge of politeness is the test web's log, read off this
 * process's clock: kept off the CPU between writing a response and reading the clock, it would log the
 * response's end late and the gap after it short. With the fleet below it, the test web gets a core first;
 * that cannot hide impoliteness, since whatever delays a crawler process only makes its gaps longer.
 */
function boot(id: string): RunningProcess {
  const m = fleet.machines[id]!;
  // The TLS files wait in the machine's secret store; its load-secrets fetches them into its TLS directory.
  const cert = certificates.get(id)!;
  const store = (name: string, value: string) => {
    const path = join(m.dirs.config, "secret-store", TLS_PREFIX, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value);
  };
  store("ca.pem", ca.certificatePem);
  store(`${id}.pem`, cert.certificatePem);
  store(`${id}.key`, cert.keyPem);
  provisionMachine(m, VALUES);
  const p = startAsUnit(m);
  setPriority(p.pid, 10);
  running.set(id, p);
  return p;
}

test("fleet crawl - the rendered two-region fleet boots as rendered, crawls each region's hosts from that region, politely, and ships its WARC files", async () => {
  // What is booted needs nothing the processes do not read yet.
  expect(fleet.pending_process_settings).toEqual({});

  for (const [id] of machinesOf("nats")) boot(id);
  for (const [id] of machinesOf("redis")) boot(id);
  await Promise.all([
    ...machinesOf("nats").map(([id]) => running.get(id)!.waitFor(/Server is ready/, 30_000, `${id} ready`)),
    ...machinesOf("redis").map(([id]) => running.get(id)!.waitFor(/Ready to accept connections/, 30_000, `${id} ready`)),
  ]);
  // Gateways up, and JetStream's supercluster-wide metadata leader known to every server (before it is,
  // a process's first JetStream request times out; under systemd the unit would restart it).
  await Promise.all(
    machinesOf("nats").flatMap(([id, m]) => {
      const other = m.region === US ? EU : US;
      const server = running.get(id)!;
      return [
        server.waitFor(new RegExp(`Outbound gateway connection to "${other}"[^\\n]*registered`), 60_000, `${id} gateway to ${other}`),
        // "remote": the leader's node is known but not yet its server's name (seen on a server of the
        // other region, which then logged nothing more about it).
        server.waitFor(
          /(Self is new JetStream cluster metadata leader|JetStream cluster new (remote )?metadata leader)/,
          60_000,
          `${id} JetStream leader`,
        ),
      ];
    }),
  );

  const [coordinatorId] = machinesOf("coordinator")[0]!;
  await boot(coordinatorId).waitFor(/"adminUrl"/, 60_000, "the coordinator serving");
  for (const [id] of [...machinesOf("frontier"), ...machinesOf("fetch")]) boot(id);

  const adminUrl = fleet.coordinator_admin_urls[0]!;
  const token = VALUES[SECRETS.admin_token]!;
  const admin = async (path: string, init: RequestInit = {}) => {
    expect(adminUrl).toStartWith("https://");
    const res = await fetch(`${adminUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      signal: AbortSignal.timeout(10_000),
      tls: { ca: ca.certificatePem },
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const crawlers = [...machinesOf("frontier"), ...machinesOf("fetch")].map(([id]) => id);
  await until(
    async () => {
      const { nodes } = (await admin("/v1/nodes")) as { nodes: { id: string; state: string }[] };
      return crawlers.every((id) => nodes.some((n) => n.id === id && n.state === "live"));
    },
    "every frontier and fetch node live in the coordinator's view",
    90_000,
  );

  const seeds = web.hosts.map((h) => web.url(h));
  const expected = web.expectedPages(seeds);
  const answer = (await admin("/v1/seeds", { method: "POST", body: JSON.stringify({ urls: seeds }) })) as { accepted: number };
  expect(answer.accepted).toBe(seeds.length);

  await until(
    () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0,
    "every expected page requested",
    120_000,
    () => `missing: ${missing(expected.pages, fetchCounts(pageRequests(web)).keys()).join(", ")}`,
  );

  // Stopping the fetch nodes as their units do finishes their open WARC files and uploads them.
  for (const [id, p] of running) expect({ id, exited: p.exited() }).toEqual({ id, exited: false });
  const stopped = await Promise.all(machinesOf("fetch").map(async ([id]) => ({ id, ...(await running.get(id)!.stop()) })));
  expect(stopped).toEqual(machinesOf("fetch").map(([id]) => ({ id, code: 0, signal: null })));

  // The test web: every page once, the fleet's User-Agent on every request, no politeness violation.
  const pages = pageRequests(web);
  expect(repeated(pages)).toEqual({});
  expect(missing(fetchCounts(pages).keys(), expected.pages)).toEqual([]);
  expect([...new Set(web.requests.map((r) => r.headers["user-agent"]))]).toEqual([USER_AGENT]);
  expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 })).toEqual([]);

  // The bucket: each region's prefix holds the pages of that region's hosts, in files of its fetch node.
  const rules = parseRegionRules(fleet.region_rules, US);
  const fetchedBy = new Map<string, string>();
  for (const region of [US, EU]) {
    const prefix = `${BUCKET_PREFIX}/${region}/`;
    const stored = await readBucketWarcs(s3.client, prefix);
    expect(repeatedRecordIds(stored)).toEqual([]);
    const warcs = stored.names.filter((n) => n.endsWith(".warc.gz"));
    expect(warcs.length).toBeGreaterThan(0);
    const fetchNode = fleet.regions[region]!.fetch[0]!;
    for (const name of warcs) expect({ name, node: name.includes(fetchNode) }).toEqual({ name, node: true });
    for (const records of stored.records.values()) {
      for (const r of records.filter((x) => x.type === "response")) {
        const url = new URL(r.url!);
        expect({ url: r.url, region: regionOf(url.host, rules) }).toEqual({ url: r.url, region });
        fetchedBy.set(`http://${url.host}${url.pathname}`, region);
      }
    }
  }
  expect(missing(fetchCounts(pages).keys(), fetchedBy.keys())).toEqual([]);
  for (const region of [US, EU]) {
    const dir = join(fleet.machines[fleet.regions[region]!.fetch[0]!]!.dirs.state, "warc");
    const left = existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((n) => String(n).endsWith(".warc.gz")) : [];
    expect({ region, left }).toEqual({ region, left: [] });
  }

  // Each region's streams live in that region's own NATS cluster.
  const coordinator = fleet.machines[coordinatorId]!;
  const nc = await connectNats(
    fleet.regions[US]!.nats_urls.split(","),
    "fleet-crawl probe",
    {},
    { user: "coordinator", password: VALUES[SECRETS.nats_coordinator_password], caPem: ca.certificatePem },
  );
  expect(coordinator.env["CRAWL_NATS_USER"]).toBe("coordinator");
  try {
    const jsm = await jetstreamManager(nc);
    for (const region of [US, EU]) {
      for (const stream of Object.values(fleet.regions[region]!.streams)) {
        const info = await jsm.streams.info(stream);
        expect({ stream, cluster: info.cluster?.name }).toEqual({ stream, cluster: region });
      }
    }
  } finally {
    await nc.close();
  }
}, 420_000);

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs: number, detail?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await cond()) return;
    } catch (error) {
      lastError = error;
    }
    const dead = [...running].find(([, p]) => p.exited());
    if (dead || Date.now() > deadline) {
      const why = dead
        ? `${dead[0]} exited before ${what}; its output:\n${dead[1].log()}`
        : `timed out after ${timeoutMs} ms waiting for ${what}`;
      throw new Error(`${why}${detail ? `\n${detail()}` : ""}${lastError ? `\nlast error: ${String(lastError)}` : ""}`);
    }
    await Bun.sleep(100);
  }
}
