/**
 * Every name the cluster agrees on: NATS subjects, JetStream streams and durable consumers, and the keys of
 * the cluster-state bucket. Anyone can compute where a message goes from a host alone (region rules, then
 * partition = hash(host) mod P), so no message needs the ring to be addressed; the ring only says which
 * frontier node pulls a partition's consumers.
 *
 *   crawl.urls.<region>.<p>       DiscoveredLinks for partition p        stream CRAWL_URLS_<region>     consumer urls-<p>
 *   crawl.fetch.<region>          FetchTask for the region's fetchers    stream CRAWL_FETCH_<region>    consumer fetchers
 *   crawl.results.<region>.<p>    FetchResult for partition p's owner     stream CRAWL_RESULTS_<region>  consumer results-<p>
 *   crawl.forward.<region>.<to>.<p>  DiscoveredLinks for partition p of    stream CRAWL_FORWARD_<region>  consumer forwarders
 *                                 region <to>, kept in <region> until <to> takes them (its servers were unreachable)
 *
 * Region names and node ids are restricted to `[a-z0-9-]` so they are valid in subjects, stream names and
 * KV keys alike.
 */
export const CLUSTER_BUCKET = "crawl-cluster";

const TOKEN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Throws unless `name` is a valid region name or node id. */
export function checkToken(kind: "region" | "node id", name: string): string {
  if (!TOKEN.test(name)) throw new Error(`${kind} "${name}" must be 1-63 characters of a-z, 0-9 and -, starting with a letter or digit`);
  return name;
}

export const subjects = {
  urls: (region: string, partition: number) => `crawl.urls.${region}.${partition}`,
  urlsWildcard: (region: string) => `crawl.urls.${region}.*`,
  fetch: (region: string) => `crawl.fetch.${region}`,
  results: (region: string, partition: number) => `crawl.results.${region}.${partition}`,
  resultsWildcard: (region: string) => `crawl.results.${region}.*`,
  forward: (region: string, to: string, partition: number) => `crawl.forward.${region}.${to}.${partition}`,
  forwardWildcard: (region: string) => `crawl.forward.${region}.>`,
};

export const streams = {
  urls: (region: string) => `CRAWL_URLS_${region.toUpperCase().replace(/-/g, "_")}`,
  fetch: (region: string) => `CRAWL_FETCH_${region.toUpperCase().replace(/-/g, "_")}`,
  results: (region: string) => `CRAWL_RESULTS_${region.toUpperCase().replace(/-/g, "_")}`,
  forward: (region: string) => `CRAWL_FORWARD_${region.toUpperCase().replace(/-/g, "_")}`,
};

export const consumers = {
  urls: (partition: number) => `urls-${partition}`,
  results: (partition: number) => `results-${partition}`,
  fetchers: "fetchers",
  forwarders: "forwarders",
};

export const keys = {
  node: (id: string) => `nodes.${id}`,
  nodePrefix: "nodes.",
  ring: "ring",
  lease: (name: string) => `lease.${name}`,
};
