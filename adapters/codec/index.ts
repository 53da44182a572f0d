/**
 * Conversions between the plain types of core/model and the protobuf messages of
 * proto/crawler/fetch/v1, used by the networked bus at the edge. Every decoder throws CodecError on bytes
 * it cannot read or values the model cannot hold; every encoder throws CodecError on values the wire
 * cannot carry (negative or fractional ids, timestamps beyond 2^53).
 */
export { CodecError } from "./errors.ts";
export {
  decodeFetchTask,
  decodeFetchTaskWithRegion,
  encodeFetchTask,
  fetchTaskFromProto,
  fetchTaskToProto,
} from "./fetch-task.ts";
export { decodeFetchResult, encodeFetchResult, fetchResultFromProto, fetchResultToProto } from "./fetch-result.ts";
export { decodeDiscoveredLinks, discoveredUrlFromProto, discoveredUrlToProto, encodeDiscoveredLinks } from "./discovered-links.ts";
