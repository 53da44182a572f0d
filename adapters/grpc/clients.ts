/**
 * Hand-written facades over the generated grpc-js clients of FrontierService and CoordinatorService:
 * promise-returning methods, a deadline on every call (the client's default, or `deadlineMs` per call), an
 * optional AbortSignal, an optional bearer token sent as `authorization` metadata, and failures turned into
 * the project's errors by `fromGrpcError` (an unreachable peer is an UnavailableError naming it). Calls do
 * not wait for a connection: a peer that is down fails at once with UNAVAILABLE instead of hanging until
 * the deadline. With `tls` the link is TLS (tls.ts: the server's certificate checked against the CA and
 * the address dialled, this node's certificate presented when given). The caller owns a client and must
 * `close()` it.
 */
import { Metadata, type CallOptions as GrpcCallOptions, type ClientUnaryCall, type ServiceError as GrpcServiceError } from "@grpc/grpc-js";
import {
  CoordinatorServiceClient,
  type AddJobSeedsResponse,
  type ChangeJobResponse,
  type CreateJobRequest,
  type CreateJobResponse,
  type GetJobResponse,
  type JobAction,
  type ListJobsResponse,
  type AddSeedsResponse,
  type DrainNodeResponse,
  type ExplainUrlResponse as CoordinatorExplainUrlResponse,
  type GetHostResponse as CoordinatorGetHostResponse,
  type GetRingResponse,
  type GetStatusResponse,
  type ListCapturesResponse as CoordinatorListCapturesResponse,
  type ListNodesResponse,
  type SetHostPausedResponse as CoordinatorSetHostPausedResponse,
} from "../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import {
  FrontierServiceClient,
  type DrainResponse,
  type EnqueueRequest,
  type EnqueueResponse,
  type ExplainUrlResponse,
  type GetHostResponse,
  type GetStatsResponse,
  type HandoffRequest,
  type HandoffResponse,
  type ListCapturesResponse,
  type ListHostsResponse,
  type SetHostPausedResponse,
  type SetHostPolicyResponse,
} from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import { fromGrpcError } from "./status-mapping.ts";
import { clientCredentials, type ClientTls } from "./tls.ts";

export const DEFAULT_DEADLINE_MS = 5_000;

export interface ClientOptions {
  /** Deadline of each call unless the call gives its own; default 5 s. */
  deadlineMs?: number;
  /** Sent as `authorization: Bearer <token>` on every call. */
  token?: string;
  /** Names the peer in error messages; default `<service> at <address>`. */
  peerName?: string;
  /** TLS to the server; absent: plain text. */
  tls?: ClientTls;
}

export interface CallOptions {
  deadlineMs?: number;
  signal?: AbortSignal;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<GrpcCallOptions>,
  callback: (error: GrpcServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Shared plumbing of both facades: metadata, deadlines, cancellation and error mapping. */
class Caller {
  constructor(
    private readonly peer: string,
    private readonly defaultDeadlineMs: number,
    private readonly token: string | undefined,
  ) {}

  metadata(): Metadata {
    const md = new Metadata();
    if (this.token) md.set("authorization", `Bearer ${this.token}`);
    return md;
  }

  deadline(opts: CallOptions | undefined): Date {
    return new Date(Date.now() + (opts?.deadlineMs ?? this.defaultDeadlineMs));
  }

  unary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, opts?: CallOptions): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      if (opts?.signal?.aborted) {
        reject(fromGrpcError(opts.signal.reason, this.peer));
        return;
      }
      const onAbort = () => call.cancel();
      const call = method(request, this.metadata(), { deadline: this.deadline(opts) }, (error, response) => {
        opts?.signal?.removeEventListener("abort", onAbort);
        if (error) reject(fromGrpcError(error, this.peer));
        else resolve(response);
      });
      opts?.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  error(error: unknown): Error {
    return fromGrpcError(error, this.peer);
  }
}

/** Promise facade of FrontierService (proto/crawler/frontier/v1). */
export class FrontierClient {
  private readonly client: FrontierServiceClient;
  private readonly caller: Caller;

  constructor(
    readonly address: string,
    opts: ClientOptions = {},
  ) {
    const channel = clientCredentials(address, opts.tls);
    this.client = new FrontierServiceClient(address, channel.credentials, channel.options);
    this.caller = new Caller(opts.peerName ?? `frontier node at ${address}`, opts.deadlineMs ?? DEFAULT_DEADLINE_MS, opts.token);
  }

  enqueue(request: EnqueueRequest, opts?: CallOptions): Promise<EnqueueResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.enqueue(r, m, o, cb), request, opts);
  }

  getStats(opts?: CallOptions): Promise<GetStatsResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getStats(r, m, o, cb), {}, opts);
  }

  listHosts(limit: number, opts?: CallOptions): Promise<ListHostsResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.listHosts(r, m, o, cb), { limit }, opts);
  }

  getHost(host: string, opts?: CallOptions): Promise<GetHostResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getHost(r, m, o, cb), { host }, opts);
  }

  setHostPaused(host: string, paused: boolean, opts?: CallOptions): Promise<SetHostPausedResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.setHostPaused(r, m, o, cb), { host, paused }, opts);
  }

  setHostPolicy(host: string, minGapMs: bigint, opts?: CallOptions): Promise<SetHostPolicyResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.setHostPolicy(r, m, o, cb), { host, minGapMs }, opts);
  }

  explainUrl(url: string, opts?: CallOptions): Promise<ExplainUrlResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.explainUrl(r, m, o, cb), { url }, opts);
  }

  /** `limit` 0: every capture kept. */
  listCaptures(url: string, limit: number, opts?: CallOptions): Promise<ListCapturesResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.listCaptures(r, m, o, cb), { url, limit }, opts);
  }

  drain(opts?: CallOptions): Promise<DrainResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.drain(r, m, o, cb), {}, opts);
  }

  /**
   * Streams one partition's state to this node (client streaming), honouring back-pressure, and resolves
   * with the receiver's summary once it has committed everything. The last chunk should have `done: true`.
   */
  handoff(chunks: Iterable<HandoffRequest> | AsyncIterable<HandoffRequest>, opts?: CallOptions): Promise<HandoffResponse> {
    return new Promise<HandoffResponse>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          opts?.signal?.removeEventListener("abort", onAbort);
          fn();
        }
      };
      const stream = this.client.handoff(this.caller.metadata(), { deadline: this.caller.deadline(opts) }, (error, response) => {
        settle(() => (error ? reject(this.caller.error(error)) : resolve(response)));
      });
      const onAbort = () => stream.cancel();
      opts?.signal?.addEventListener("abort", onAbort, { once: true });
      (async () => {
        for await (const chunk of chunks) {
          if (settled) return;
          if (!stream.write(chunk)) await new Promise<void>((r) => stream.once("drain", () => r()));
        }
        stream.end();
      })().catch((error: unknown) => {
        stream.cancel();
        settle(() => reject(error));
      });
    });
  }

  close(): void {
    this.client.close();
  }
}

/** Promise facade of CoordinatorService (proto/crawler/coordinator/v1), as crawlctl uses it. */
export class CoordinatorClient {
  private readonly client: CoordinatorServiceClient;
  private readonly caller: Caller;

  constructor(
    readonly address: string,
    opts: ClientOptions = {},
  ) {
    const channel = clientCredentials(address, opts.tls);
    this.client = new CoordinatorServiceClient(address, channel.credentials, channel.options);
    this.caller = new Caller(opts.peerName ?? `coordinator at ${address}`, opts.deadlineMs ?? DEFAULT_DEADLINE_MS, opts.token);
  }

  getStatus(opts?: CallOptions): Promise<GetStatusResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getStatus(r, m, o, cb), {}, opts);
  }

  listNodes(opts?: CallOptions): Promise<ListNodesResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.listNodes(r, m, o, cb), {}, opts);
  }

  getRing(opts?: CallOptions): Promise<GetRingResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getRing(r, m, o, cb), {}, opts);
  }

  /** Seeds: page URLs, and feed URLs read as feeds. */
  addSeeds(urls: string[], opts?: CallOptions, feeds: string[] = []): Promise<AddSeedsResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.addSeeds(r, m, o, cb), { urls, feeds }, opts);
  }

  getHost(host: string, opts?: CallOptions): Promise<CoordinatorGetHostResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getHost(r, m, o, cb), { host }, opts);
  }

  setHostPaused(host: string, paused: boolean, opts?: CallOptions): Promise<CoordinatorSetHostPausedResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.setHostPaused(r, m, o, cb), { host, paused }, opts);
  }

  explainUrl(url: string, opts?: CallOptions): Promise<CoordinatorExplainUrlResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.explainUrl(r, m, o, cb), { url }, opts);
  }

  /** `limit` 0: every capture kept. */
  listCaptures(url: string, limit: number, opts?: CallOptions): Promise<CoordinatorListCapturesResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.listCaptures(r, m, o, cb), { url, limit }, opts);
  }

  drainNode(nodeId: string, opts?: CallOptions): Promise<DrainNodeResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.drainNode(r, m, o, cb), { nodeId }, opts);
  }

  createJob(req: CreateJobRequest, opts?: CallOptions): Promise<CreateJobResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.createJob(r, m, o, cb), req, opts);
  }

  listJobs(opts?: CallOptions): Promise<ListJobsResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.listJobs(r, m, o, cb), {}, opts);
  }

  getJob(id: string, opts?: CallOptions): Promise<GetJobResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.getJob(r, m, o, cb), { id }, opts);
  }

  changeJob(id: string, action: JobAction, opts?: CallOptions): Promise<ChangeJobResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.changeJob(r, m, o, cb), { id, action }, opts);
  }

  addJobSeeds(id: string, urls: string[], opts?: CallOptions, feeds: string[] = []): Promise<AddJobSeedsResponse> {
    return this.caller.unary((r, m, o, cb) => this.client.addJobSeeds(r, m, o, cb), { id, urls, feeds }, opts);
  }

  close(): void {
    this.client.close();
  }
}
