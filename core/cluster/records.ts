/**
 * The documents kept in the cluster-state bucket (NATS KV in a cluster, memory in tests): one record per
 * node, refreshed by its heartbeat, and the ring assignment. Plain JSON data.
 */
import type { HostReport } from "../dashboard/index.ts";
import type { AddressRow } from "../politeness/index.ts";
import type { HistogramSnapshot } from "../stats/index.ts";
import type { JobCounts } from "../jobs/index.ts";

export type NodeRole = "coordinator" | "frontier" | "fetcher";
export type NodeStatus = "active" | "draining" | "left";

export interface NodeRecord {
  id: string;
  role: NodeRole;
  region: string;
  runtime: "bun" | "deno";
  status: NodeStatus;
  /** gRPC address of a frontier node or a coordinator (host:port); empty for fetch nodes. */
  grpcAddress: string;
  /** Health and metrics endpoint (http://host:port). */
  httpAddress: string;
  startedAt: number;
  /** Last heartbeat, epoch ms; a node silent for longer than the death timeout is dead. */
  heartbeatAt: number;
  /** Partitions a frontier node is serving now. */
  partitions: number[];
  /** The node's counters (namespaced names) and gauges (queued, inFlight...). */
  counters: Record<string, number>;
  gauges: Record<string, number>;
  /** The node's histograms (frontier and fetch nodes), merged by the coordinator for the cluster view. */
  histograms?: Record<string, HistogramSnapshot>;
  /** A frontier node's host board and politeness figures (a few hosts per list), for the dashboard. */
  hosts?: HostReport;
  /**
   * The busiest servers of the cap per address where this process takes its passes (a fetch node; `crawl`):
   * at most ADDRESS_BOARD_ROWS rows (core/politeness AddressBoard), merged by server for the dashboard.
   */
  addresses?: AddressRow[];
  /** A fetch node that fetches through a proxy (which resolves names): its cap per address is per registrable domain. */
  proxied?: boolean;
  /**
   * A frontier node's per-job counters over the partitions it serves, by job number (core/jobs): what the
   * coordinator sums into each job's pages, errors and queued. At most one entry per job (≤ MAX_JOBS).
   */
  jobs?: Record<string, JobCounts>;
}

/** Which frontier node serves each partition of each region. */
export interface RingRecord {
  /** Bumped on every change of owners. */
  epoch: number;
  partitions: number;
  vnodes: number;
  regions: Record<string, RegionAssignment>;
  /**
   * The death timeout of the coordinator that wrote the ring, in ms: a node silent longer is found dead
   * and its partitions move without a handoff. A frontier node fences itself by it, stopping before that
   * (frontier-node/node/self-fence.ts). Absent from rings written before it existed.
   */
  deathTimeoutMs?: number;
  /**
   * The term of the coordinator that wrote the ring: the revision of the lease grant that began its
   * tenure. A coordinator never writes over a ring of a higher term, and stands by when it finds one
   * (coordinator/rebalancer.ts). Absent from rings written before it existed (0).
   */
  leaderTerm?: number;
  /**
   * The fleet's politeness key (core/cluster fleet-politeness-key.ts): hosts are placed by it, so it is fixed
   * for the cluster's life. Absent from rings written before it existed, and with the default key (`host`).
   */
  politenessKey?: "domain" | "ip";
}

export interface RegionAssignment {
  /** owners[p] is the node id serving partition p, or "" when the region has no frontier node. */
  owners: string[];
  /**
   * previous[p] is the node that must hand partition p over to owners[p] before the new owner starts
   * serving it, or "" when there is nothing to hand over (the old owner is dead, or the move is done).
   */
  previous: string[];
}
