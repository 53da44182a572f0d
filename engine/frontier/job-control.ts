/**
 * A crawl job's state acted on in this frontier (the design is in docs/architecture.md, "Crawl jobs"):
 *  - paused, done or cancelled: its URLs are no longer handed out (scheduling.ts asks the gate, JobGate);
 *    the other jobs' URLs of the same hosts go on, under the same politeness;
 *  - cancelled: its queued URLs are dropped (state `dropped`, note "job cancelled"), a batch of DROP_BATCH
 *    a transaction, read from the index of job rows, each journaled as any dequeue; a URL in flight stays
 *    until its result (which is applied and counted); other jobs' URLs of the same hosts are untouched;
 *  - ended (done or cancelled): links its last pages bring are not queued (admission.ts asks the gate).
 */
import type { JobRecord } from "../../core/jobs/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { FrontierState } from "./frontier-state.ts";

const DROP_BATCH = 5_000;

export class JobControl {
  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
  ) {}

  /** Takes a job's record as last written; drops its queue when it is cancelled. Returns the URLs dropped. */
  apply(job: Pick<JobRecord, "number" | "state"> & Partial<JobRecord>): number {
    this.s.jobs.set(job);
    this.s.budgets?.setJob(job);
    return job.state === "cancelled" && job.number !== 0 ? this.dropQueued(job.number) : 0;
  }

  /**
   * Drops the queued URLs of `job` but those in flight, DROP_BATCH a transaction: the first batch now (its
   * count is returned), the rest one batch a turn of the event loop, so a job with millions of URLs never
   * holds the loop (dispatching and results go on between batches; its URLs are held meanwhile).
   */
  dropQueued(job: number): number {
    const dropped = this.dropBatch(job);
    if (dropped === DROP_BATCH) {
      const next = () => {
        if (this.s.jobs.hasEnded(job) && this.dropBatch(job) === DROP_BATCH) setTimeout(next, 0);
      };
      setTimeout(next, 0);
    }
    return dropped;
  }

  /** One batch of dropQueued; returns how many were dropped (DROP_BATCH: perhaps more are left). */
  private dropBatch(job: number): number {
    const store = this.s.store;
    const rows = store.jobQueued(job, DROP_BATCH + 1);
    const drop = rows
      .filter((r) => {
        const flight = this.s.hosts.get(r.host)?.inFlight?.item;
        return !(flight && flight.partition === r.partition && flight.priority === r.priority && flight.seq === r.seq);
      })
      .slice(0, DROP_BATCH);
    if (drop.length === 0) return 0;
    store.tx(() => {
      for (const d of drop) {
        store.dequeue(d);
        store.setUrlState({ ...d, depth: 0 }, "dropped", "job cancelled");
        const entry = this.s.hosts.get(d.host);
        if (entry) this.hosts.dequeued(entry, d);
        else {
          this.s.totalQueued--;
          this.s.patterns.remove(d.host, d.url);
        }
      }
    });
    this.s.counters.add("frontier.dropped-job-cancelled", drop.length);
    return drop.length;
  }
}
