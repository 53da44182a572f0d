/**
 * Conversions between the plain types of core/model and the protobuf messages of
 * proto/crawler/.../v1, used at the edges (the networked bus, the gRPC services). Every decoder throws CodecError on bytes
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
export { urlExplanation } from "./url-explanation.ts";
export { jobActionFrom, jobActionOf, jobCreateBodyOf, jobInfoOf, jobJsonOf, settingsOf } from "./job.ts";
export { captureFromProto, captureToProto } from "./captures.ts";
export {
  hostInfoOf,
  jsonOf,
  serverFields,
  urlExplanationOf,
  type HostPlace,
  type InspectedHost,
  type InspectedServer,
  type InspectedUrl,
} from "./inspection.ts";
