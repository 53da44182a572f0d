/**
 * The FetchClaims port: which stored copy of a fetch task may be fetched. A task is normally stored once
 * (its publish dedups on the task id), but a frontier node that publishes a task again after its first
 * publish's ack was lost with a NATS server can get it stored twice: the restarted server rebuilt its
 * duplicate window from the messages it still holds, and the first copy was already fetched and acked out
 * of the work queue. Two copies fetched by two fetch nodes would break the host's gap, so each fetch node
 * claims a task for the copy it was delivered (`Delivery.copy`, the stream sequence) before fetching it,
 * and drops a copy whose task another copy claimed. A redelivery of the same copy (a node died mid-fetch,
 * a nak) claims again and is still "mine".
 *
 * In cluster mode the region's Redis holds the claims, shared by every fetch node of the region
 * (adapters/redis); in memory (adapters/memory) they hold within one process only (tests, a fetch node
 * without Redis).
 *
 * Contract:
 *  - `claim(taskId, copy, ttlMs)` records `copy` as the copy of `taskId` to fetch when no copy holds the
 *    task, and answers "mine"; it answers "mine" again for the copy that holds it (idempotent), and
 *    "other-copy" for any other copy while the claim lasts. Of two callers racing with different copies,
 *    exactly one hears "mine".
 *  - A claim lasts `ttlMs` from when it was made (claiming again does not extend it); after that the task is
 *    free again and the next copy to claim it holds it.
 *  - It rejects when it cannot answer (the store is unreachable); the caller decides what that means.
 *  - `close()` releases what the claims built themselves; the caller that built them closes them.
 */
export type FetchClaim = "mine" | "other-copy";

export interface FetchClaims {
  claim(taskId: string, copy: number, ttlMs: number): Promise<FetchClaim>;
  close(): Promise<void>;
}
