/**
 * Routes host and URL questions to the frontier node that holds the host. The address of a host is pure
 * (core/addressing: host key → region by the rules, partition by hash mod P); the ring then names the
 * partition's owner. While a handoff is pending (`previous[p]` set), the host's queue and politeness state
 * still sit with the previous owner, so questions go to it; otherwise to the owner. The node's gRPC address
 * comes from its record, and one FrontierService client per address is kept in a pool (closed with
 * `close()`).
 *
 * Errors, named for the edges to map: a malformed host or URL is InvalidArgumentError; a partition nobody
 * owns (no ring yet, no frontier node in the region) is NotFoundError; an owner that is dead, has no
 * address or does not answer is UnavailableError naming the node. `explainUrl` refuses input that is not a
 * URL at all (InvalidArgumentError), answers without any frontier node for a URL the crawler would never
 * crawl (another scheme), and with the addressing alone when the partition has no owner. Host names are at
 * most 253 characters (RFC 1035), URLs at most 8,192; nothing longer is parsed, and errors quote at most
 * 64 characters of the input.
 */
import type { PolitenessKeyMode } from "../core/politeness/index.ts";
import { addressOf, hostKeyOfArgument } from "../core/addressing/index.ts";
import type { NodeRecord, RegionRules } from "../core/cluster/index.ts";
import { type ClusterState } from "../core/ports/index.ts";
import { hostKeyOf, isNotAUrl, MAX_URL_LENGTH, normalizeUrl } from "../core/url/index.ts";
import { InvalidArgumentError, NotFoundError, UnavailableError } from "../core/errors/index.ts";
import { urlExplanation } from "../proto/codec/index.ts";
import type { Capture, HostInfo, UrlExplanation } from "../proto/gen/crawler/frontier/v1/frontier.ts";
import { captureLookup, checkedCaptureLimit } from "../core/captures/index.ts";
import type { Membership } from "./membership.ts";

/** What routing needs of a FrontierService client (adapters/grpc FrontierClient fits). */
export interface FrontierPeer {
  getHost(host: string): Promise<{ host?: HostInfo | undefined }>;
  setHostPaused(host: string, paused: boolean): Promise<{ host?: HostInfo | undefined }>;
  explainUrl(url: string): Promise<{ explanation?: UrlExplanation | undefined }>;
  listCaptures(url: string, limit: number): Promise<{ url: string; captures: Capture[] }>;
  drain(): Promise<unknown>;
  close(): void;
}

/** Makes a client for a frontier node's gRPC address; `peerName` names the node in error messages. */
export type FrontierPeerFactory = (address: string, peerName: string) => FrontierPeer;

export interface RoutingOptions {
  state: ClusterState;
  membership: Membership;
  rules: RegionRules;
  partitions: number;
  /** The fleet's politeness key (the ring's): hosts are placed by it (core/addressing). Default host. */
  politenessKey?: PolitenessKeyMode;
  connect: FrontierPeerFactory;
}

export interface HostAddress {
  hostKey: string;
  region: string;
  partition: number;
  /** Ring owner of the partition, "" when none. */
  owner: string;
  /** Node to ask about the host: the previous owner during a handoff, else the owner; "" when none. */
  holder: string;
}

export class Routing {
  private readonly pool = new Map<string, { address: string; peer: FrontierPeer }>();

  constructor(private readonly opts: RoutingOptions) {}

  /** The addressing of a host key (`example.com`, `example.com:8080`) or URL; InvalidArgumentError if malformed. */
  async locate(host: string): Promise<HostAddress> {
    return this.address(hostKeyOfArgument(host));
  }

  async getHost(host: string): Promise<HostInfo> {
    const where = await this.requireHolder(hostKeyOfArgument(host));
    const answer = await this.peerFor(where.record).getHost(where.address.hostKey);
    return withAddress(answer.host, where.address);
  }

  async setHostPaused(host: string, paused: boolean): Promise<HostInfo> {
    const where = await this.requireHolder(hostKeyOfArgument(host));
    const answer = await this.peerFor(where.record).setHostPaused(where.address.hostKey, paused);
    return withAddress(answer.host, where.address);
  }

  async explainUrl(input: string): Promise<UrlExplanation> {
    if (input.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`url: longer than ${MAX_URL_LENGTH} characters`);
    const n = normalizeUrl(input);
    if (!n.ok && isNotAUrl(n.reason)) throw new InvalidArgumentError(`url: not an absolute http(s) URL (${n.reason})`);
    if (!n.ok) return urlExplanation({ input, rejectedReason: n.reason, note: "rejected by normalization; it would never be crawled" });
    const address = await this.address(hostKeyOf(n.url));
    const base = {
      input,
      normalized: n.url,
      host: address.hostKey,
      partition: address.partition,
      region: address.region,
      owner: address.owner,
    };
    if (!address.holder) return urlExplanation({ ...base, note: "no frontier node serves this partition yet" });
    const record = await this.liveRecord(address.holder, address);
    const answer = await this.peerFor(record).explainUrl(n.url);
    return { ...urlExplanation(), ...answer.explanation, ...base };
  }

  /**
   * Where a URL's last captures are stored, newest first, asked of the node that holds its host (the
   * previous owner during a handoff: the URL's row moves with the partition's last chunk). A URL of a
   * partition nobody owns yet has no captures anywhere: NotFoundError, like a host question.
   */
  async listCaptures(input: string, limit: number): Promise<{ url: string; captures: Capture[] }> {
    const { url, host } = captureLookup(input);
    const checked = checkedCaptureLimit(limit);
    const where = await this.requireHolder(host);
    const answer = await this.peerFor(where.record).listCaptures(url, checked);
    return { url, captures: answer.captures.slice(0, checked) };
  }

  /** Asks a frontier node to stop dispatching (FrontierService.Drain). */
  async drainFrontier(record: NodeRecord): Promise<void> {
    await this.peerFor(record).drain();
  }

  close(): void {
    for (const { peer } of this.pool.values()) peer.close();
    this.pool.clear();
  }

  private async address(hostKey: string): Promise<HostAddress> {
    const { region, partition } = addressOf(hostKey, this.opts);
    const ring = (await this.opts.state.getRing())?.ring;
    const assignment = ring?.regions[region];
    const owner = assignment?.owners[partition] ?? "";
    const previous = assignment?.previous[partition] ?? "";
    return { hostKey, region, partition, owner, holder: previous || owner };
  }

  private async requireHolder(hostKey: string): Promise<{ address: HostAddress; record: NodeRecord }> {
    const address = await this.address(hostKey);
    if (!address.holder) {
      throw new NotFoundError(`no frontier node owns ${hostKey} (partition ${address.partition} of region ${address.region}) yet`);
    }
    return { address, record: await this.liveRecord(address.holder, address) };
  }

  private async liveRecord(id: string, address: HostAddress): Promise<NodeRecord> {
    const member = (await this.opts.membership.view()).members.find((m) => m.record.id === id);
    const what = `frontier node ${id} (holder of partition ${address.partition} of region ${address.region})`;
    if (!member) throw new UnavailableError(`${what} has no record in the cluster state; the ring will move its partitions`);
    if (member.state === "dead" || member.state === "left") {
      throw new UnavailableError(
        `${what} is ${member.state} (last heartbeat ${Math.round(member.heartbeatAgeMs / 1000)} s ago); the ring will move its partitions`,
      );
    }
    if (!member.record.grpcAddress) throw new UnavailableError(`${what} has no gRPC address in its record`);
    return member.record;
  }

  private peerFor(record: NodeRecord): FrontierPeer {
    const pooled = this.pool.get(record.id);
    if (pooled && pooled.address === record.grpcAddress) return pooled.peer;
    pooled?.peer.close();
    const peer = this.opts.connect(record.grpcAddress, `frontier node ${record.id} at ${record.grpcAddress}`);
    this.pool.set(record.id, { address: record.grpcAddress, peer });
    return peer;
  }
}

function withAddress(info: HostInfo | undefined, address: HostAddress): HostInfo {
  if (!info) throw new UnavailableError(`frontier node ${address.holder} answered without host information`);
  return { ...info, host: info.host || address.hostKey, partition: address.partition, region: address.region, owner: address.owner };
}
