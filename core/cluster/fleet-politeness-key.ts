/**
 * The politeness key is fixed for a cluster's life, like the partition count: it places every host (its
 * partition and region, core/addressing), so every URL queued, every seen-set bit and every host state of a
 * partition is where the key put it. Changing it on a fleet with queued URLs would leave each of them in a
 * partition its hosts no longer map to: links would go to the new place, the old queue would be found by no
 * one. So the coordinator writes its key into the ring, and a coordinator, frontier node or fetch node whose
 * key differs from the ring's refuses to start (a frontier node's store keeps the key it was built with too).
 * A crawl with another key is a new cluster (its own NATS and Redis), or the old one drained first.
 */
import type { PolitenessKeyMode } from "../politeness/index.ts";
import type { RingRecord } from "./records.ts";

/** The ring's key (rings written before it existed are `host`'s). */
export function ringPolitenessKey(ring: Pick<RingRecord, "politenessKey">): PolitenessKeyMode {
  return ring.politenessKey ?? "host";
}

/**
 * Why a role with key `mine` may not join a cluster (or resume a store) whose key is `fleet`; undefined when
 * they agree. `elsewhere` says where a crawl with the other key can go instead.
 */
export function politenessKeyMismatch(
  fleet: PolitenessKeyMode,
  mine: PolitenessKeyMode,
  where = "the cluster's ring",
  elsewhere = "in a new cluster",
): string | undefined {
  if (fleet === mine) return undefined;
  return `--politeness-key ${mine} differs from ${where} (${fleet}); the key places every host (its partition and region), so it is fixed for the crawl's life: start with --politeness-key ${fleet}, or crawl with ${mine} ${elsewhere}`;
}
