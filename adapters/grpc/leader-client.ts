/**
 * CoordinatorService at several addresses (a leader and its standbys), as one client: each call goes to
 * the address that answered last, and moves to the next when that one is unreachable or is a standby
 * (NotLeaderError: only the lease holder serves the API, and a standby refuses before doing anything, so
 * asking elsewhere is always safe). When a standby answered but no address served (the leader just died
 * and no standby has taken the lease yet), the call tries the addresses again until `failoverMs` has
 * passed, so a command run during a failover waits for the new leader instead of failing. Any other
 * answer (not found, invalid argument, the owner of a host unreachable...) is the result and is returned
 * or thrown as is. With one address the call behaves exactly like CoordinatorClient.
 */
import type {
  AddJobSeedsResponse,
  AddSeedsResponse,
  ChangeJobResponse,
  CreateJobRequest,
  CreateJobResponse,
  GetJobResponse,
  JobAction,
  ListJobsResponse,
  DrainNodeResponse,
  ExplainUrlResponse,
  GetHostResponse,
  GetRingResponse,
  GetStatusResponse,
  ListCapturesResponse,
  ListNodesResponse,
  SetHostPausedResponse,
} from "../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { NotLeaderError, UnavailableError, UnreachableError } from "../../core/errors/index.ts";
import { CoordinatorClient, type CallOptions, type ClientOptions } from "./clients.ts";

export interface LeaderClientOptions extends ClientOptions {
  /** How long to keep asking while a standby answers but no leader does. Default 15 s (a lease TTL and then some). */
  failoverMs?: number;
}

export const DEFAULT_FAILOVER_MS = 15_000;

export class CoordinatorLeaderClient {
  private readonly clients: CoordinatorClient[];
  private preferred = 0;

  constructor(
    readonly addresses: readonly string[],
    private readonly opts: LeaderClientOptions = {},
  ) {
    if (addresses.length === 0) throw new Error("CoordinatorLeaderClient needs at least one address");
    this.clients = addresses.map((a) => new CoordinatorClient(a, opts));
  }

  /** Runs `fn` against the leader (see the module comment). */
  async call<T>(fn: (client: CoordinatorClient) => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.opts.failoverMs ?? DEFAULT_FAILOVER_MS);
    let pauseMs = 250;
    for (;;) {
      const failures: Error[] = [];
      let standby = false;
      for (let k = 0; k < this.clients.length; k++) {
        const i = (this.preferred + k) % this.clients.length;
        try {
          const result = await fn(this.clients[i]!);
          this.preferred = i;
          return result;
        } catch (error) {
          if (error instanceof NotLeaderError) standby = true;
          else if (!(error instanceof UnreachableError)) throw error;
          failures.push(error);
        }
      }
      if (this.clients.length === 1) throw failures[0]!;
      if (!standby || Date.now() + pauseMs > deadline) throw combined(failures, standby);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, 1_000);
    }
  }

  getStatus(opts?: CallOptions): Promise<GetStatusResponse> {
    return this.call((c) => c.getStatus(opts));
  }

  listNodes(opts?: CallOptions): Promise<ListNodesResponse> {
    return this.call((c) => c.listNodes(opts));
  }

  getRing(opts?: CallOptions): Promise<GetRingResponse> {
    return this.call((c) => c.getRing(opts));
  }

  createJob(req: CreateJobRequest, opts?: CallOptions): Promise<CreateJobResponse> {
    return this.call((c) => c.createJob(req, opts));
  }

  listJobs(opts?: CallOptions): Promise<ListJobsResponse> {
    return this.call((c) => c.listJobs(opts));
  }

  getJob(id: string, opts?: CallOptions): Promise<GetJobResponse> {
    return this.call((c) => c.getJob(id, opts));
  }

  changeJob(id: string, action: JobAction, opts?: CallOptions): Promise<ChangeJobResponse> {
    return this.call((c) => c.changeJob(id, action, opts));
  }

  addJobSeeds(id: string, urls: string[], opts?: CallOptions, feeds: string[] = []): Promise<AddJobSeedsResponse> {
    return this.call((c) => c.addJobSeeds(id, urls, opts, feeds));
  }

  addSeeds(urls: string[], opts?: CallOptions, feeds: string[] = []): Promise<AddSeedsResponse> {
    return this.call((c) => c.addSeeds(urls, opts, feeds));
  }

  getHost(host: string, opts?: CallOptions): Promise<GetHostResponse> {
    return this.call((c) => c.getHost(host, opts));
  }

  setHostPaused(host: string, paused: boolean, opts?: CallOptions): Promise<SetHostPausedResponse> {
    return this.call((c) => c.setHostPaused(host, paused, opts));
  }

  explainUrl(url: string, opts?: CallOptions): Promise<ExplainUrlResponse> {
    return this.call((c) => c.explainUrl(url, opts));
  }

  drainNode(nodeId: string, opts?: CallOptions): Promise<DrainNodeResponse> {
    return this.call((c) => c.drainNode(nodeId, opts));
  }

  listCaptures(url: string, limit: number, opts?: CallOptions): Promise<ListCapturesResponse> {
    return this.call((c) => c.listCaptures(url, limit, opts));
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}

/** One error for a round in which no address served: unreachable when none answered at all. */
function combined(failures: readonly Error[], standby: boolean): UnavailableError {
  const detail = failures.map((e) => e.message).join("; ");
  return standby
    ? new UnavailableError(`no coordinator holds the lease (a standby answered, no leader did): ${detail}`)
    : new UnreachableError(`no coordinator could be reached: ${detail}`);
}
