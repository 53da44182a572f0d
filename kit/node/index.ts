/** A node's presence in the cluster, the same for every role: the heartbeat and the node id. */
export { NodeHeartbeat, type HeartbeatOptions } from "./heartbeat.ts";
export { newNodeId, type NodeIdParts } from "./node-id.ts";
