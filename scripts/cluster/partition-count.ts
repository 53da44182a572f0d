/**
 * The partition count P of a local cluster. P is fixed for a cluster's life (every node hashes hosts into
 * it and the ring is cut into it; the coordinator refuses another), so a DIR keeps the P it first ran with
 * in layout.json and every later `cluster up` on it uses that one.
 *
 * A new DIR gets 8 partitions per frontier node, at least 16, where the nodes' own default is 64 (sized for
 * a fleet that grows). Each partition a frontier node serves costs it something whatever its traffic: a
 * JetStream consumer for its URLs and one for its results (so nats-server tracks and signals twice as many
 * consumers), a seen-set script call per group commit that touches it, and its own replication queue. On
 * one 2-core box with 2 frontier nodes, 16 partitions crawled about a tenth faster than 64 (the crawl bench's
 * cluster row, runs alternated: 700-756 against 656-694 pages/s), and 16 still leaves room for 16 frontier
 * nodes.
 */

export const PARTITIONS_PER_FRONTIER = 8;
export const MIN_NEW_PARTITIONS = 16;
/** The P of a DIR whose layout.json predates keeping it: the only default `cluster up` had then. */
export const UNRECORDED_PARTITIONS = 64;

export interface PartitionCountInput {
  /** `--partitions` or CRAWL_PARTITIONS, when given. */
  given: number | undefined;
  /** The DIR's layout.json: absent for a new DIR; `partitions` absent when it predates keeping P. */
  layout: { partitions?: number } | undefined;
  frontiers: number;
}

export type PartitionCount = { partitions: number } | { problem: string };

export function clusterPartitions({ given, layout, frontiers }: PartitionCountInput): PartitionCount {
  const kept = layout === undefined ? undefined : (layout.partitions ?? UNRECORDED_PARTITIONS);
  if (kept === undefined) return { partitions: given ?? Math.max(MIN_NEW_PARTITIONS, PARTITIONS_PER_FRONTIER * frontiers) };
  if (given !== undefined && given !== kept) {
    return {
      problem:
        `--partitions ${given}: this DIR's cluster has ${kept} partitions, fixed for its life (every node and the ring use them); ` +
        `leave --partitions out (or give ${kept}), or give another --dir for a new cluster`,
    };
  }
  return { partitions: kept };
}
