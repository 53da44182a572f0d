/**
 * The cluster's shared vocabulary, pure: names of subjects, streams, consumers and keys; region rules;
 * the records of membership and ring; the ring computation; and the kinds of the settings every role shares (node id, region, NATS URLs).
 */
export { CLUSTER_BUCKET, RING_BUCKET, checkToken, consumers, keys, objectStores, streams, subjects } from "./names.ts";
export { parseRegionRules, regionOf, regionsOf, type RegionRules } from "./regions.ts";
export type { NodeRecord, NodeRole, NodeStatus, RegionAssignment, RingRecord } from "./records.ts";
export { politenessKeyMismatch, ringPolitenessKey } from "./fleet-politeness-key.ts";
export { completeHandoff, computeRing, partitionRoles, type AssignmentInput } from "./assignment.ts";
export { FetcherChoice, liveFetchers } from "./fetcher-choice.ts";
export { listenKind, NATS_REPLICAS_FIELD, natsUrlsKind, tokenKind } from "./setting-kinds.ts";
export {
  BUS_ENCODING_HEADER,
  BUS_ENCODINGS,
  UNLABELLED_ENCODING,
  readBusEncoding,
  type EncodingVerdict,
  type ReadableEncodings,
} from "./bus-encoding.ts";
export { NATS_ROLES, natsPermissions, renderNatsAccounts, type NatsRole, type SubjectPermissions } from "./nats-permissions.ts";
export { REDIS_CRAWLER_ACL, REDIS_CRAWLER_USER } from "./redis-acl.ts";
