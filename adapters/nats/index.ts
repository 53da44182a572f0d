/**
 * The NATS adapters of the cluster's ports: a connection helper that works on Bun and Deno, ClusterState
 * over a KV bucket, MessageBus over JetStream work queues, and PartitionReplica over a JetStream stream
 * and object store.
 */
export { connectNats, watchNatsConnection, type NatsAccess, type NatsConnection } from "./connect.ts";
export { NatsKvClusterState, type NatsKvClusterStateOptions } from "./kv-cluster-state.ts";
export { JetStreamBus, type JetStreamBusOptions } from "./jetstream-bus.ts";
export { ConfigDriftError } from "./errors.ts";
export { JetStreamPartitionReplica, type JetStreamPartitionReplicaOptions } from "./jetstream-partition-replica.ts";
export { JetStreamPageFeed, type JetStreamPageFeedOptions } from "./jetstream-page-feed.ts";
export { NatsKvJobBudget } from "./kv-job-budget.ts";
