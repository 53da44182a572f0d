/**
 * The FetchClaims port: which delivery of a fetch task may be fetched. Two ways a task reaches a fetch
 * node again though the bus does not say so, both seen when a NATS server is killed and restarted:
 *
 *  - a second stored copy: a frontier node publishes a task again after the ack of its first publish was
 *    lost with the server, and the restarted server, which rebuilt its duplicate window only from the
 *    messages it still holds (the first copy was already fetched and acked out of the work queue), stores
 *    it twice;
 *  - the same copy delivered again as a first delivery: the server lost its consumer's latest state with
 *    the kill, so a task delivered just before it (being fetched, or already done) comes again with a
 *    delivery count of 1.
 *
 * Fetching either would be a second request to the host, maybe while the frontier's next task for it is
 * fetched: a broken gap. So a fetch node claims a task for the stored copy it was delivered
 * (`Delivery.copy`, the stream sequence) before fetching, and marks it done once its outputs are stored.
 *
 * In cluster mode the region's Redis holds the claims, shared by every fetch node of the region
 * (adapters/redis); in memory (adapters/memory) they hold within one process only (tests, a fetch node
 * without Redis).
 *
 * Contract:
 *  - `claim(taskId, copy, ttlMs)` answers, atomically:
 *      `new`        no copy held the task: now `copy` does, from now on, for `ttlMs`;
 *      `again`      `copy` already holds it, since `ageMs` ago (on the store's clock), and it is not done:
 *                   this delivery repeats an earlier one, whose attempt may have ended or be under way;
 *      `held`       `copy` holds it and its attempt said (`hold`) it is alive, for `forMs` more;
 *      `other-copy` another copy holds it (not done);
 *      `done`       the task was marked done (by any copy).
 *    Of callers racing with different copies, exactly one hears `new`. Claiming again changes nothing.
 *    With `owner` (the task's partition and the ownership epoch its issuer stamped on it,
 *    `FetchTask.ownerEpoch`), first, atomically with the rest: if a task of that partition was already
 *    claimed under a higher epoch, the answer is `stale` (with that epoch) and nothing is set: a newer
 *    owner serves the partition, so this task's issuer no longer does (a node that was paused, or cut
 *    off, and has not noticed yet), and the new owner hands out its own task for that host. Otherwise the
 *    partition's epoch becomes at least the task's.
 *  - `done(taskId, ttlMs)` marks the task done, whoever held it (or nobody); from then on, for `ttlMs`,
 *    every claim of it answers `done`. Idempotent.
 *  - `hold(taskId, copy, forMs)` says that `copy`'s attempt is alive and holds the task's outputs (they
 *    wait for the bus), for `forMs` from now; the holder says it again before then, or its word lapses.
 *    Until it lapses a claim of that copy answers `held` (with the ms left) rather than `again`: the
 *    attempt's result is still to come, so a repeat must not fetch. Only the copy holding the claim can
 *    hold it (anything else changes nothing), and holding neither extends the claim's TTL nor undoes `done`.
 *  - A claim or mark lasts its `ttlMs` from when it was made; after that the task is free again. A TTL that
 *    is not a positive whole number of ms is refused (RangeError).
 *  - Both reject when the store cannot answer (unreachable); the caller decides what that means.
 *  - `close()` releases what the claims built themselves; the caller that built them closes them.
 */
export type FetchClaim =
  | { kind: "new" }
  | { kind: "again"; ageMs: number }
  | { kind: "held"; forMs: number }
  | { kind: "other-copy" }
  | { kind: "done" }
  | { kind: "stale"; ownerEpoch: number };

/** Whose task a claim is for: its partition and the ownership epoch stamped on it by its issuer. */
export interface TaskOwner {
  partition: number;
  epoch: number;
}

/**
 * How long a claim or done mark lasts by default (the fetch node's --fetch-claim-ttl, and the frontier
 * node's done marks): longer than a task may wait in the stream behind others.
 */
export const DEFAULT_FETCH_CLAIM_TTL_MS = 10 * 60_000;

export interface FetchClaims {
  claim(taskId: string, copy: number, ttlMs: number, owner?: TaskOwner): Promise<FetchClaim>;
  done(taskId: string, ttlMs: number): Promise<void>;
  hold(taskId: string, copy: number, forMs: number): Promise<void>;
  close(): Promise<void>;
}
