/**
 * Crawl jobs in the cluster: core/jobs JobService over the cluster state's job records (NATS KV
 * `jobs.<id>`, written only by the lease holder, compare-and-set on the key's revision), seeds published
 * to the partitions' streams (seeds.ts), and each job's counters summed from what the live frontier nodes
 * report for the partitions they serve (NodeRecord.jobs). Every frontier node watches the records
 * (pausing, cancelling and ending a job reach the frontier that way). Both edges (gRPC and the admin API)
 * call the service.
 */
import { JobService, type JobCounts } from "../core/jobs/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import type { BudgetKeeper } from "./job-budgets.ts";
import type { Membership } from "./membership.ts";
import type { SeedPublisher } from "./seeds.ts";

export { JobService, type JobView } from "../core/jobs/index.ts";

export interface ClusterJobsOptions {
  state: ClusterState;
  membership: Pick<Membership, "view">;
  seeds: Pick<SeedPublisher, "add">;
  now: () => number;
  /** The jobs' page budgets (job-budgets.ts): a job whose budget is spent ends `max-pages`. Absent: by the count alone. */
  budgets?: Pick<BudgetKeeper, "spentOut">;
}

export function clusterJobService(opts: ClusterJobsOptions): JobService {
  return new JobService({
    registry: opts.state,
    counts: () => memberJobCounts(opts.membership),
    seeds: opts.seeds,
    now: opts.now,
    budgets: opts.budgets,
  });
}

/** Each job's counters summed over the live frontier nodes' reports. */
export async function memberJobCounts(membership: Pick<Membership, "view">): Promise<Map<number, JobCounts>> {
  const view = await membership.view();
  const sums = new Map<number, JobCounts>();
  for (const m of view.members) {
    if (m.record.role !== "frontier" || m.state === "dead" || m.state === "left" || !m.record.jobs) continue;
    for (const [number, c] of Object.entries(m.record.jobs)) {
      const sum = sums.get(Number(number)) ?? { pages: 0, errors: 0, queued: 0 };
      sum.pages += c.pages;
      sum.errors += c.errors;
      sum.queued += c.queued;
      sums.set(Number(number), sum);
    }
  }
  return sums;
}
