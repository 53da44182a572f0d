/**
 * Every port of the crawler in one place: the small interfaces the engine and the roles depend on, each
 * with its contract in its doc comment. In-process implementations live in adapters/memory and
 * adapters/sqlite, networked ones in adapters/nats, adapters/redis, adapters/grpc; one contract test suite
 * (tests/contract) runs against every implementation.
 */
export type { AddressGate, AddressGateLimits, AddressGateState, AddressPass } from "./address-gate.ts";
export type { ClusterState, Delivery, MessageBus, NodeChange, Subscription, TaskInbox, TaskRoute } from "./cluster.ts";
export type { ContentIndex } from "./content-index.ts";
export type { JobRegistry } from "./job-registry.ts";
export type { FetchClaim, FetchClaims, TaskOwner } from "./fetch-claims.ts";
export { DEFAULT_FETCH_CLAIM_TTL_MS } from "./fetch-claims.ts";
export type { Fetcher, PageStore, StoredRecords, StreamingFetcher, TaskRunner, WorkOutput } from "./fetch.ts";
export { silentLog, type Log, type LogFields } from "./log.ts";
export { SeenSetLostError, type AdmissionLog, type SeenLossReason, type SeenSet } from "./seen-set.ts";
export type { ObjectStore, StoredObject } from "./object-store.ts";
export type { BatchEntry, ClaimEntry, PartitionReplica, ReplicaEntry, ReplicaWriter, SnapshotInfo } from "./partition-replica.ts";
export type { JobBudget } from "./job-budget.ts";
export type { PageFeed } from "./page-feed.ts";
export type { RenderedPage, RenderedStore, Renderer, RenderOutput } from "./render.ts";
