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
    return job.state === "cancelled" && job.number !== 0 ? this.dropQueued(job.number) : 0;
  }

  /** Drops every queued URL of `job` but those in flight; returns how many. */
  dropQueued(job: number): number {
    const store = this.s.store;
    let dropped = 0;
    for (;;) {
      const rows = store.jobQueued(job, DROP_BATCH);
      const drop = rows.filter((r) => {
        const flight = this.s.hosts.get(r.host)?.inFlight?.item;
        return !(flight && flight.partition === r.partition && flight.priority === r.priority && flight.seq === r.seq);
      });
      if (drop.length === 0) return dropped;
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
      dropped += drop.length;
      // Only rows in flight are left: they leave with their results.
      if (drop.length < rows.length && rows.length < DROP_BATCH) return dropped;
    }
  }
}
