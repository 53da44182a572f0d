/**
 * The gRPC edge of the coordinator: CoordinatorService (proto/crawler/coordinator/v1) for crawlctl. Each
 * handler reads or acts through CoordinatorServices and converts to the generated messages; what a handler
 * throws becomes a status in adapters/grpc (`unary` → `toGrpcError`), so the project's errors keep their
 * meaning (NOT_FOUND, INVALID_ARGUMENT, UNAVAILABLE...) and anything else is INTERNAL without details.
 * When tokens are configured every call must carry `authorization: Bearer <token>` metadata with one of
 * them (UNAUTHENTICATED otherwise): the same tokens as the admin HTTP API, compared in constant time. A
 * standby (a coordinator without the lease) answers every authenticated call with UNAVAILABLE and a
 * NotLeaderError (services.ts, `requireLeader`): clients given several addresses ask the next one.
 */
import { errorFields } from "../kit/log/index.ts";
import { unary, type GrpcServiceBinding } from "../adapters/grpc/index.ts";
import { InvalidArgumentError, UnauthenticatedError, UnavailableError } from "../core/errors/index.ts";
import { jobCreateRequest, jobSeedsRequest } from "../core/jobs/index.ts";
import { jobActionOf, jobCreateBodyOf, jobInfoOf } from "../proto/codec/index.ts";
import type { InternalErrorLog } from "../adapters/grpc/index.ts";
import type { NodeRole as RecordRole, RingRecord } from "../core/cluster/index.ts";
import {
  CoordinatorServiceService,
  NodeRole,
  NodeState,
  type CoordinatorServiceServer,
  type GetRingResponse,
  type GetStatusResponse,
  type NodeInfo,
} from "../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { bearerToken, type TokenSet } from "../core/auth/index.ts";
import type { Member, MemberState } from "./membership.ts";
import { drainNode, requireLeader, type CoordinatorServices } from "./services.ts";
import type { ClusterTotals } from "./stats.ts";

export interface GrpcServiceOptions {
  /** Accepted bearer tokens (two during a rotation); undefined disables the check (tests, trusted networks). */
  tokens?: TokenSet;
  /** Seeds one job call may carry (the admin API's limit); default 10,000. */
  maxSeedsPerRequest?: number;
}

const DEFAULT_MAX_SEEDS = 10_000;

interface CallWithMetadata {
  metadata: { get(key: string): Array<string | Uint8Array> };
}

export function coordinatorGrpcService(services: CoordinatorServices, opts: GrpcServiceOptions = {}): GrpcServiceBinding {
  const logInternal: InternalErrorLog = (error) => services.log.error("internal error in a gRPC call", errorFields(error));
  const handle = <Req, Res>(fn: (request: Req) => Promise<Res>) =>
    unary<Req, Res>(async (request, call) => {
      authorize(call as CallWithMetadata, opts.tokens);
      await requireLeader(services);
      return fn(request);
    }, logInternal);

  const maxSeeds = opts.maxSeedsPerRequest ?? DEFAULT_MAX_SEEDS;
  const implementation: CoordinatorServiceServer = {
    getStatus: handle(async () => statusResponse(await services.stats.read())),
    listNodes: handle(async () => ({ nodes: (await services.membership.view()).members.map(nodeInfo) })),
    getRing: handle(async () => {
      const stored = await services.state.getRing();
      if (!stored) throw new UnavailableError("no ring yet: no coordinator has taken the lease and written one");
      return ringResponse(stored.ring);
    }),
    addSeeds: handle(async (req) => {
      const outcome = await services.seeds.add(req.urls, 0, req.feeds);
      return { accepted: outcome.accepted, rejected: outcome.rejected };
    }),
    getHost: handle(async (req) => ({ host: await services.routing.getHost(req.host) })),
    setHostPaused: handle(async (req) => ({ host: await services.routing.setHostPaused(req.host, req.paused) })),
    explainUrl: handle(async (req) => ({ explanation: await services.routing.explainUrl(req.url) })),
    listCaptures: handle(async (req) => services.routing.listCaptures(req.url, req.limit)),
    drainNode: handle(async (req) => {
      const member = await drainNode(services, req.nodeId);
      return { nodeId: member.record.id, state: nodeState(member.state) };
    }),
    createJob: handle(async (req) => {
      const created = await services.jobs.create(jobCreateRequest(jobCreateBodyOf(req), maxSeeds));
      return {
        job: jobInfoOf(created.job, created.counts),
        accepted: created.seeds?.accepted ?? 0,
        rejected: created.seeds?.rejected ?? [],
      };
    }),
    listJobs: handle(async () => ({ jobs: (await services.jobs.list()).map((v) => jobInfoOf(v.job, v.counts)) })),
    getJob: handle(async (req) => {
      const v = await services.jobs.show(req.id);
      return { job: jobInfoOf(v.job, v.counts) };
    }),
    changeJob: handle(async (req) => {
      const action = jobActionOf(req.action);
      if (!action) throw new InvalidArgumentError("action: give pause, resume or cancel");
      const v = await services.jobs.act(req.id, action);
      return { job: jobInfoOf(v.job, v.counts) };
    }),
    addJobSeeds: handle(async (req) => {
      const { urls, feeds } = jobSeedsRequest(
        { ...(req.urls.length > 0 && { urls: req.urls }), ...(req.feeds.length > 0 && { feeds: req.feeds }) },
        maxSeeds,
      );
      return services.jobs.addSeeds(req.id, urls, feeds);
    }),
  };
  return { definition: CoordinatorServiceService, implementation };
}

function authorize(call: CallWithMetadata, tokens: TokenSet | undefined): void {
  if (tokens === undefined) return;
  const header = call.metadata.get("authorization")[0];
  const value = typeof header === "string" ? header : header ? new TextDecoder().decode(header) : "";
  const given = bearerToken(value);
  if (given === undefined) throw new UnauthenticatedError("missing bearer token: send authorization: Bearer <token> metadata");
  if (!tokens.matches(given)) throw new UnauthenticatedError("invalid bearer token");
}

function statusResponse(t: ClusterTotals): GetStatusResponse {
  return {
    counters: Object.fromEntries(Object.entries(t.counters).map(([k, v]) => [k, int64(v)])),
    pagesFetched: int64(t.pagesFetched),
    pagesPerSecond: t.pagesPerSecond,
    queued: int64(t.queued),
    inFlight: int64(t.inFlight),
    frontierNodes: t.frontierNodes,
    fetchNodes: t.fetchNodes,
    errors: int64(t.errors),
    atMs: int64(t.atMs),
  };
}

function nodeInfo(m: Member): NodeInfo {
  const r = m.record;
  return {
    id: r.id,
    role: nodeRole(r.role),
    region: r.region,
    runtime: r.runtime,
    state: nodeState(m.state),
    partitions: [...(r.partitions ?? [])],
    grpcAddress: r.grpcAddress,
    httpAddress: r.httpAddress,
    lastHeartbeatMs: int64(r.heartbeatAt),
    startedAtMs: int64(r.startedAt),
    counters: Object.fromEntries(Object.entries(r.counters ?? {}).map(([k, v]) => [k, int64(v)])),
  };
}

function ringResponse(ring: RingRecord): GetRingResponse {
  return {
    partitions: ring.partitions,
    epoch: int64(ring.epoch),
    regions: Object.keys(ring.regions)
      .sort()
      .map((region) => {
        const r = ring.regions[region]!;
        return {
          region,
          assignments: r.owners.map((owner, partition) => ({ partition, owner, previousOwner: r.previous[partition] ?? "" })),
        };
      }),
  };
}

function nodeRole(role: RecordRole): NodeRole {
  switch (role) {
    case "coordinator":
      return NodeRole.NODE_ROLE_COORDINATOR;
    case "frontier":
      return NodeRole.NODE_ROLE_FRONTIER;
    case "fetcher":
      return NodeRole.NODE_ROLE_FETCHER;
    default:
      return NodeRole.NODE_ROLE_UNSPECIFIED;
  }
}

function nodeState(state: MemberState): NodeState {
  switch (state) {
    case "live":
      return NodeState.NODE_STATE_ACTIVE;
    case "draining":
      return NodeState.NODE_STATE_DRAINING;
    case "dead":
      return NodeState.NODE_STATE_DEAD;
    case "left":
      return NodeState.NODE_STATE_LEFT;
  }
}

/** A JSON number as int64; non-finite values (a corrupt record) become 0 rather than failing the call. */
function int64(value: number): bigint {
  return Number.isFinite(value) ? BigInt(Math.trunc(value)) : 0n;
}
