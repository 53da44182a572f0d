/**
 * FrontierService (proto/crawler/frontier/v1) over this node's frontier. Handlers throw the project's
 * errors (core/errors); `unary` and `toGrpcError` turn them into statuses, so this is the only
 * place that knows about gRPC. Conventions:
 *
 *  - A host argument is a host key (`example.com`, `example.com:8080`) or a URL, whose host key is used.
 *  - Reads (GetHost, ExplainUrl, ListHosts) answer from this node's store whatever the owner is; the
 *    answer carries the owner under the ring so a caller can tell. Changes to a host (SetHostPaused,
 *    SetHostPolicy) require that this node serves its partition: FAILED_PRECONDITION names the owner.
 *  - Enqueue never refuses a URL for its partition: URLs of partitions this node serves are admitted here;
 *    the others are published to `crawl.urls.<region>.<p>` for their owner (the same path a fetch node's
 *    links take), so a caller may send seeds to any frontier node. `admitted` counts the URLs new here
 *    plus the URLs forwarded (whose seen check happens at their owner). While the node's self-fence says
 *    it may not act (self-fence.ts), every URL takes the stream: its partition may be another node's now.
 */
import type { PolitenessKeyMode } from "../../core/politeness/index.ts";
import { captureLookup, checkedCaptureLimit } from "../../core/captures/index.ts";
import { captureToProto, type InspectedServer } from "../../proto/codec/index.ts";
import { addressOf, groupByOwner, hostKeyOfArgument } from "../../core/addressing/index.ts";
import { errorInfo } from "../../kit/log/index.ts";
import type { RegionRules } from "../../core/cluster/index.ts";
import type { MessageBus } from "../../core/ports/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../../core/url/index.ts";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError, UnavailableError } from "../../core/errors/index.ts";
import { toGrpcError, unary, type GrpcServiceBinding, type InternalErrorLog } from "../../adapters/grpc/index.ts";
import { hostInfoOf, serverFields, urlExplanation, urlExplanationOf } from "../../proto/codec/index.ts";
import {
  FrontierServiceService,
  type FrontierServiceServer,
  type HandoffRequest,
  type HostInfo,
  type UrlExplanation,
} from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import type { Frontier, HostView } from "../../engine/frontier/index.ts";
import type { HandoffReceiver } from "./handoff-receiver.ts";

export interface FrontierServiceDeps {
  /** For `url explain`: the server a URL is capped under and its state (absent: the cap's figures only). */
  servers?: { explain(url: string): Promise<InspectedServer> };
  nodeId: string;
  region: string;
  partitions: number;
  rules: RegionRules;
  /** The fleet's politeness key (the ring's): hosts are placed by it (core/addressing). Default host. */
  politenessKey?: PolitenessKeyMode;
  frontier: Frontier;
  bus: Pick<MessageBus, "publishUrls">;
  receiver: Pick<HandoffReceiver, "receive">;
  /** Owner of partition p of a region under the ring this node follows ("" when unknown). */
  ownerOf: (region: string, p: number) => string;
  /** Partitions this node serves now. */
  serving: () => number[];
  /** Drains the node (stops dispatching, marks its record draining). */
  drain: () => Promise<void>;
  /** Called after URLs were admitted here (the dispatcher looks again). */
  onAdmitted: () => void;
  /** Whether the node may act on its partitions now (self-fence.ts); default always. */
  mayAct?: () => boolean;
  logInternal?: InternalErrorLog;
}

const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 10_000;
const MAX_ENQUEUE = 100_000;

export function frontierService(deps: FrontierServiceDeps): GrpcServiceBinding {
  const log = deps.logInternal;
  const { frontier } = deps;

  const hostInfo = (view: HostView): HostInfo => {
    const { region } = addressOf(view.host, deps);
    return hostInfoOf(view, { region, owner: deps.ownerOf(region, view.partition) });
  };

  /** The host key of a request's host argument, and where it lives. */
  const locate = (raw: string) => {
    const host = hostKeyOfArgument(raw);
    const { region, partition } = addressOf(host, deps);
    return { host, region, partition, owner: deps.ownerOf(region, partition) };
  };

  /** Throws unless this node serves the host's partition (changes must reach the owner). */
  const requireOwned = (where: ReturnType<typeof locate>) => {
    if (where.region === deps.region && frontier.serves(where.partition)) return;
    const owner = where.owner ? `node ${where.owner}` : "no node yet (being handed over, or no frontier node in the region)";
    throw new FailedPreconditionError(
      `host ${where.host} is in partition ${where.partition} of region ${where.region}, served by ${owner}, not by ${deps.nodeId}`,
    );
  };

  const viewOf = (host: string): HostView => {
    const view = frontier.hostInfo(host);
    if (!view) throw new NotFoundError(`this node knows nothing about host ${host}`);
    return view;
  };

  const implementation: FrontierServiceServer = {
    enqueue: unary(async (request) => {
      if (request.urls.length > MAX_ENQUEUE)
        throw new InvalidArgumentError(`at most ${MAX_ENQUEUE} URLs per call, got ${request.urls.length}`);
      const local: DiscoveredUrl[] = [];
      const remote: DiscoveredUrl[] = [];
      const rejected: string[] = [];
      const acting = deps.mayAct?.() ?? true;
      for (const u of request.urls) {
        const n = normalizeUrl(u.url);
        if (!n.ok) {
          rejected.push(`${u.url}: ${n.reason}`);
          continue;
        }
        const host = hostKeyOf(n.url);
        const discovered: DiscoveredUrl = { url: n.url, host, depth: u.isSeed ? 0 : u.depth, redirectHops: u.redirectHops };
        if (u.sourceUrl) discovered.sourceUrl = u.sourceUrl;
        if (u.isSeed) discovered.isSeed = true;
        const { region, partition } = addressOf(host, deps);
        if (acting && region === deps.region && frontier.serves(partition)) local.push(discovered);
        else remote.push(discovered);
      }
      if (rejected.length > 0) {
        throw new InvalidArgumentError(
          `${rejected.length} URL(s) cannot be crawled, nothing was enqueued: ${rejected.slice(0, 5).join("; ")}${rejected.length > 5 ? "; ..." : ""}`,
        );
      }
      let forwarded = 0;
      try {
        await Promise.all(
          groupByOwner(remote, deps).map(async (g) => {
            await deps.bus.publishUrls(g.region, g.partition, g.urls);
            forwarded += g.urls.length;
          }),
        );
      } catch (error) {
        throw new UnavailableError(`the message bus refused URLs for other partitions: ${errorInfo(error).message}`, { cause: error });
      }
      let added = 0;
      try {
        added = local.length > 0 ? await frontier.admit(local) : 0;
      } catch (error) {
        // The seen-set's Redis is down or a partition of it is being rebuilt: nothing was admitted.
        throw new UnavailableError(`admitting the URLs failed, nothing was enqueued; retry: ${errorInfo(error).message}`, {
          cause: error,
        });
      }
      if (added > 0) deps.onAdmitted();
      frontier.counters.add("node.enqueue.forwarded", forwarded);
      return { admitted: added + forwarded };
    }, log),

    getStats: unary(async () => {
      const s = frontier.snapshot();
      return {
        nodeId: deps.nodeId,
        counters: Object.fromEntries(Object.entries(s.counters).map(([k, v]) => [k, int64(v)])),
        queued: int64(s.queued),
        scheduled: int64(s.scheduled),
        knownUrls: int64(s.knownUrls),
        activeHosts: s.activeHosts,
        hostsReady: s.hostsReady,
        hostsWaiting: s.hostsWaiting,
        inFlight: s.inFlight,
        partitions: deps.serving(),
      };
    }, log),

    listHosts: unary(async (request) => {
      const limit = request.limit === 0 ? DEFAULT_LIST_LIMIT : Math.min(request.limit, MAX_LIST_LIMIT);
      return { hosts: frontier.listHosts(limit).map(hostInfo) };
    }, log),

    getHost: unary(async (request) => ({ host: hostInfo(viewOf(locate(request.host).host)) }), log),

    setHostPaused: unary(async (request) => {
      const where = locate(request.host);
      requireOwned(where);
      frontier.setHostPaused(where.host, request.paused);
      if (!request.paused) deps.onAdmitted();
      return { host: hostInfo(viewOf(where.host)) };
    }, log),

    setHostPolicy: unary(async (request) => {
      const where = locate(request.host);
      requireOwned(where);
      if (request.minGapMs < 0n) throw new InvalidArgumentError(`min_gap_ms must not be negative, got ${request.minGapMs}`);
      if (request.minGapMs > BigInt(Number.MAX_SAFE_INTEGER))
        throw new InvalidArgumentError(`min_gap_ms is too large: ${request.minGapMs}`);
      frontier.setHostMinGap(where.host, Number(request.minGapMs));
      return { host: hostInfo(viewOf(where.host)) };
    }, log),

    explainUrl: unary(async (request) => {
      const explanation = explain(request.url);
      // The server the URL is capped under, as the region's fetch nodes find it, and its state in the region's gate.
      if (deps.servers && explanation.normalized && !explanation.addressRefusal) {
        Object.assign(explanation, serverFields(await deps.servers.explain(explanation.normalized)));
      }
      return { explanation };
    }, log),

    // Answered from this node's store whatever the owner is, like ExplainUrl: routing asks the holder.
    listCaptures: unary(async (request) => {
      const { url, host } = captureLookup(request.url);
      const limit = checkedCaptureLimit(request.limit);
      return { url, captures: frontier.urlCaptures(url, host).slice(0, limit).map(captureToProto) };
    }, log),

    drain: unary(async () => {
      await deps.drain();
      return { inFlight: frontier.inFlight };
    }, log),

    handoff(call, callback) {
      deps.receiver.receive(call as AsyncIterable<HandoffRequest>).then(
        (response) => callback(null, response),
        (error: unknown) => callback(toGrpcError(error, log)),
      );
    },
  };

  function explain(input: string): UrlExplanation {
    const base = urlExplanation({ input });
    if (input.trim() === "") throw new InvalidArgumentError("url is required");
    const n = normalizeUrl(input.trim());
    if (!n.ok) return { ...base, rejectedReason: n.reason };
    const host = hostKeyOf(n.url);
    const { region, partition } = addressOf(host, deps);
    return urlExplanationOf(
      input,
      n.url,
      { host, partition, region, owner: deps.ownerOf(region, partition) },
      frontier.explainUrl(n.url, host),
    );
  }

  return { definition: FrontierServiceService, implementation };
}

function int64(n: number): bigint {
  return Number.isFinite(n) ? BigInt(Math.round(n)) : 0n;
}
