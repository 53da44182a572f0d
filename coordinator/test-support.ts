/**
 * Shared by the coordinator's tests (never imported by production code): node records, a wired set of
 * CoordinatorServices over the in-memory cluster state and bus, and a real FrontierService stub server on
 * loopback that answers host questions from a map, so routing is tested over real gRPC.
 */
import { MemoryBus, MemoryClusterState, MemoryPageFeed } from "../adapters/memory/index.ts";
import { FrontierClient, startGrpcServer, unary, type RunningGrpcServer } from "../adapters/grpc/index.ts";
import { NotFoundError } from "../core/errors/index.ts";
import { parseRegionRules, type NodeRecord, type RegionRules } from "../core/cluster/index.ts";
import { FrontierServiceService, type Capture, type HostInfo, type UrlExplanation } from "../proto/gen/crawler/frontier/v1/frontier.ts";
import { silentLog } from "../kit/log/index.ts";
import { urlExplanation } from "../proto/codec/index.ts";
import { Membership } from "./membership.ts";
import { Rebalancer } from "./rebalancer.ts";
import { Routing } from "./routing.ts";
import { SeedPublisher } from "./seeds.ts";
import { clusterJobService } from "./jobs.ts";
import type { CoordinatorServices } from "./services.ts";
import { ClusterDashboard } from "./dashboard.ts";
import { ClusterStats } from "./stats.ts";

export const P = 64;

export function nodeRecord(fields: Partial<NodeRecord> & { id: string }): NodeRecord {
  return {
    role: "frontier",
    region: "us",
    runtime: "bun",
    status: "active",
    grpcAddress: "",
    httpAddress: "",
    startedAt: 0,
    heartbeatAt: 0,
    partitions: [],
    counters: {},
    gauges: {},
    ...fields,
  };
}

export interface Harness {
  clock: { now: number };
  state: MemoryClusterState;
  bus: MemoryBus;
  rules: RegionRules;
  rebalancer: Rebalancer;
  services: CoordinatorServices;
  /** Whether the services act as the lease holder (default true). */
  leadership: { leader: boolean };
  close(): Promise<void>;
}

/** Services over MemoryClusterState and MemoryBus (regions us and eu ensured), clock at 1,000,000. */
export async function harness(): Promise<Harness> {
  const clock = { now: 1_000_000 };
  const now = () => clock.now;
  const state = new MemoryClusterState();
  const bus = new MemoryBus({ now });
  const rules = parseRegionRules("eu=.de,.fr", "us");
  for (const region of ["us", "eu"]) await bus.ensureRegion(region, P);
  const membership = new Membership({ state, now, deathTimeoutMs: 10_000 });
  const routing = new Routing({
    state,
    membership,
    rules,
    partitions: P,
    connect: (address, peerName) => new FrontierClient(address, { deadlineMs: 2_000, peerName }),
  });
  const leadership = { leader: true };
  const rebalancer = new Rebalancer({
    state,
    membership,
    nodeId: "coord-1",
    leaseTtlMs: 6_000,
    partitions: P,
    vnodes: 64,
    regions: ["us", "eu"],
    now,
    log: silentLog,
  });
  const seeds = new SeedPublisher({ bus, rules, partitions: P, maxUrls: 100 });
  const jobs = clusterJobService({ state, membership, seeds, now });
  const services: CoordinatorServices = {
    nodeId: "coord-1",
    state,
    membership,
    stats: new ClusterStats({ membership, now }),
    dashboard: new ClusterDashboard({ membership, state, now, jobs: () => jobs.list() }),
    seeds,
    jobs,
    feed: new MemoryPageFeed({ maxAgeMs: 3_600_000, maxRecords: 100_000, now }),
    routing,
    rules,
    ready: () => rebalancer.isLeader && rebalancer.hasRing,
    // The edges' tests run as the leader unless they say otherwise (`h.leadership.leader = false`), with
    // or without a rebalancer tick; the lease itself is the rebalancer's tests' subject.
    isLeader: () => leadership.leader,
    log: silentLog,
  };
  return {
    clock,
    state,
    bus,
    rules,
    rebalancer,
    services,
    leadership,
    async close() {
      routing.close();
      await bus.close();
      await state.close();
    },
  };
}

export interface StubFrontier {
  server: RunningGrpcServer;
  hosts: Map<string, HostInfo>;
  /** Captures by normalized URL, newest first, answered by ListCaptures (none for others). */
  captures: Map<string, Capture[]>;
  /** The limit of each ListCaptures asked. */
  captureLimits: number[];
  drained: number;
  close(): Promise<void>;
}

/** A real FrontierService on 127.0.0.1:0 that knows the hosts in `hosts` (NOT_FOUND for others). */
export async function stubFrontier(nodeId: string): Promise<StubFrontier> {
  const hosts = new Map<string, HostInfo>();
  const stub = { hosts, drained: 0, captures: new Map(), captureLimits: [] as number[] } as StubFrontier;
  const known = (host: string) => {
    const info = hosts.get(host);
    if (!info) throw new NotFoundError(`host ${host} is not known to ${nodeId}`);
    return info;
  };
  stub.server = await startGrpcServer(
    [
      {
        definition: FrontierServiceService,
        implementation: {
          getHost: unary(async (req: { host: string }) => ({ host: known(req.host) })),
          setHostPaused: unary(async (req: { host: string; paused: boolean }) => {
            const info = { ...known(req.host), paused: req.paused };
            hosts.set(req.host, info);
            return { host: info };
          }),
          explainUrl: unary(async (req: { url: string }) => ({ explanation: explanationFrom(nodeId, req.url) })),
          listCaptures: unary(async (req: { url: string; limit: number }) => {
            stub.captureLimits.push(req.limit);
            return { url: req.url, captures: stub.captures.get(req.url) ?? [] };
          }),
          drain: unary(async () => {
            stub.drained++;
            return { inFlight: 0 };
          }),
        },
      },
    ],
    "127.0.0.1:0",
  );
  stub.close = () => stub.server.close(100);
  return stub;
}

export function hostInfo(host: string, fields: Partial<HostInfo> = {}): HostInfo {
  return {
    host,
    partition: 0,
    region: "",
    owner: "",
    queued: 3n,
    inFlight: false,
    nextAllowedAtMs: 1_000_500n,
    gapMs: 1000n,
    paused: false,
    robotsVerdict: "parse",
    robotsExpiresAtMs: 0n,
    crawlDelayMs: 0,
    fetches: 12n,
    failures: 0n,
    throttles: 0n,
    lastStatus: 200,
    lastError: "",
    pagesToday: 12n,
    minGapOverrideMs: 0n,
    ...fields,
  };
}

function explanationFrom(nodeId: string, url: string): UrlExplanation {
  return urlExplanation({
    input: url,
    normalized: url,
    rejectedReason: "",
    host: "",
    partition: 0,
    region: "",
    owner: "",
    seen: true,
    robots: "allowed",
    robotsRule: "",
    state: "fetched",
    lastStatus: 200,
    lastFetchedAtMs: 999_000n,
    nextFetchAtMs: 0n,
    failures: 0,
    note: `answered by ${nodeId}`,
    trap: "",
    addressRefusal: "",
    scopeRejection: "",
    sitemap: "",
    foundByRender: false,
  });
}

/** Waits for a condition the in-memory state's callbacks make true (they run in microtasks and timers); 3 s at most. */
export async function until(cond: () => boolean): Promise<void> {
  const deadline = performance.now() + 3_000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 1));
  }
}
