/**
 * A test's view of a running coordinator, however the cluster was started: the admin API (with or
 * without the token), `crawlctl` run as a real child process against its gRPC address, and waits on
 * what they report (a node joined, the ring settled). Also the shapes of the admin API's answers the
 * tests read, and small readers of the ring.
 */
import { readFileSync } from "node:fs";
import { AdminClient, parseBaseUrls } from "../../../adapters/http/index.ts";
import { hostPartition } from "../../../core/addressing/index.ts";
import type { PolitenessKeyMode } from "../../../core/politeness/index.ts";
import { hermeticEnv, REPO_ROOT, waitUntil, type Proc } from "./processes.ts";

/** The one region of the test clusters (`cluster up` names its first region so). */
export const REGION = "region-1";

/** Where the coordinators are: `adminUrl` and `grpcAddress` are comma-separated lists with standbys. */
export interface ClusterInfo {
  adminUrl: string;
  grpcAddress: string;
  token: string;
  /** The CA of a `cluster up --secure`: the admin API is HTTPS and crawlctl is given it. */
  tlsCaFile?: string;
}

/** GET /v1/stats (and crawlctl status --json, with int64 as numbers). */
export interface Stats {
  atMs: number;
  counters: Record<string, number>;
  pagesFetched: number;
  pagesPerSecond: number;
  queued: number;
  inFlight: number;
  errors: number;
  frontierNodes: number;
  fetchNodes: number;
}

/** One entry of GET /v1/nodes: the node record plus its state. */
export interface NodeView {
  id: string;
  role: "coordinator" | "frontier" | "fetcher";
  region: string;
  runtime: "bun" | "deno";
  state: "live" | "draining" | "dead" | "left";
  grpcAddress: string;
  httpAddress: string;
  startedAt: number;
  heartbeatAt: number;
  partitions: number[];
  counters: Record<string, number>;
  gauges: Record<string, number>;
}

/** GET /v1/ring. */
export interface RingView {
  epoch: number;
  partitions: number;
  revision: number;
  /** The fleet's --politeness-key when it is not host (absent: host): hosts are placed by it. */
  politenessKey?: PolitenessKeyMode;
  regions: Record<string, { owners: string[]; previous: string[] }>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a test needs of a running coordinator, however the cluster was started. */
export class Coordinator {
  private readonly client: AdminClient;

  constructor(readonly info: ClusterInfo) {
    const ca = info.tlsCaFile ? readFileSync(info.tlsCaFile, "utf8") : undefined;
    this.client = new AdminClient(parseBaseUrls(info.adminUrl), { token: info.token, ca });
  }

  /** An admin API request to the coordinator holding the lease; `auth: false` leaves the token out. */
  admin(path: string, init: RequestInit & { auth?: boolean } = {}): Promise<Response> {
    return this.client.request(path, init);
  }

  async adminJson<T>(path: string): Promise<T> {
    const res = await this.admin(path);
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  stats = () => this.adminJson<Stats>("/v1/stats");
  nodes = async () => (await this.adminJson<{ nodes: NodeView[] }>("/v1/nodes")).nodes;
  ring = () => this.adminJson<RingView>("/v1/ring");

  /** `bun cli/main.ts ...args --coordinator ADDR --token TOKEN [--tls-ca-file CA]`, bounded; `tlsCaFile: null` leaves the CA out. */
  crawlctl(
    args: readonly string[],
    opts: { timeoutMs?: number; coordinator?: string; token?: string; tlsCaFile?: string | null } = {},
  ): Promise<CliResult> {
    const ca = opts.tlsCaFile === undefined ? this.info.tlsCaFile : (opts.tlsCaFile ?? undefined);
    return runCrawlctl(
      [
        ...args,
        "--coordinator",
        opts.coordinator ?? this.info.grpcAddress,
        "--token",
        opts.token ?? this.info.token,
        ...(ca ? ["--tls-ca-file", ca] : []),
      ],
      opts.timeoutMs,
    );
  }

  /** `crawlctl ... --json`, parsed; fails with its output on a non-zero exit. */
  async crawlctlJson<T>(args: readonly string[]): Promise<T> {
    const r = await this.crawlctl([...args, "--json"]);
    if (r.code !== 0) throw new Error(`crawlctl ${args.join(" ")} exited ${r.code}\n${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Seeds through `crawlctl seed add`, every URL accepted. */
  async seed(urls: readonly string[]): Promise<void> {
    const r = await this.crawlctlJson<{ accepted: number; rejected: unknown[] }>(["seed", "add", ...urls]);
    if (r.accepted !== urls.length) throw new Error(`seed add accepted ${r.accepted} of ${urls.length}: ${JSON.stringify(r.rejected)}`);
  }

  /** Waits until the node with `id` is live (and, with `since`, started at or after it). */
  async waitForNode(id: string, opts: { timeoutMs?: number; since?: number; procs?: readonly Proc[] } = {}): Promise<NodeView> {
    let found: NodeView | undefined;
    await waitUntil(
      async () => {
        found = (await this.nodes()).find((n) => n.id === id && n.state === "live" && n.startedAt >= (opts.since ?? 0));
        return found !== undefined;
      },
      {
        timeoutMs: opts.timeoutMs ?? 30_000,
        what: `node ${id} to join`,
        procs: opts.procs,
        detail: async () => JSON.stringify((await this.nodes().catch(() => [])).map((n) => [n.id, n.state])),
      },
    );
    return found!;
  }

  /** Waits until the ring has no pending handoff and gives each frontier node in `ids` at least one partition. */
  /** Waits until each region's ring is owned by exactly its nodes among `ids` (`regionOf`: default REGION), no handoff open. */
  async waitForSettledRing(ids: readonly string[], timeoutMs = 30_000, regionOf: (id: string) => string = () => REGION): Promise<RingView> {
    let ring: RingView | undefined;
    const byRegion = new Map<string, string[]>();
    for (const id of ids) byRegion.set(regionOf(id), [...(byRegion.get(regionOf(id)) ?? []), id]);
    await waitUntil(
      async () => {
        ring = await this.ring();
        return [...byRegion].every(([region, own]) => {
          const r = ring!.regions[region];
          return !!r && r.previous.every((p) => !p) && own.every((id) => r.owners.includes(id)) && r.owners.every((o) => own.includes(o));
        });
      },
      {
        timeoutMs,
        what: `a settled ring owned by ${ids.join(", ")}`,
        detail: () => JSON.stringify(ring?.regions[REGION] ? ownerCounts(ring) : ring),
      },
    );
    return ring!;
  }
}

export async function runCrawlctl(args: readonly string[], timeoutMs = 20_000, env: Record<string, string> = {}): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, "cli/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: hermeticEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    if (proc.signalCode === "SIGKILL")
      throw new Error(`crawlctl ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stderr}${stdout}`);
    return { code: proc.exitCode, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Partitions per owner of the test region. */
export function ownerCounts(ring: RingView): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of ring.regions[REGION]?.owners ?? []) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** The frontier node that owns `host` on `ring`: by the ring's politeness key, as every process places hosts. */
export function ownerOf(ring: RingView, host: string): string {
  return ring.regions[REGION]!.owners[hostPartition(host, ring)]!;
}
