/**
 * Every name the cluster agrees on: NATS subjects, JetStream streams and durable consumers, and the keys of
 * the cluster-state bucket. Anyone can compute where a message goes from a host alone (region rules, then
 * partition = hash(host) mod P), so no message needs the ring to be addressed; the ring only says which
 * frontier node pulls a partition's consumers.
 *
 *   crawl.urls.<region>.<p>       DiscoveredLinks for partition p        stream CRAWL_URLS_<region>     consumer urls-<p>
 *   crawl.fetch.<region>          FetchTask for any of the region's      stream CRAWL_FETCH_<region>    consumer fetchers
 *                                 fetchers (the fallback: the frontier node knows no live fetch node)
 *   crawl.fetch.<region>.to.<id>  FetchTask for fetch node <id> (host    stream CRAWL_FETCH_<region>    consumer inbox-<id>
 *                                 affinity: its politeness key's node), the node's inbox
 *   crawl.fetch.<region>.render   FetchTask asking for rendering, for    stream CRAWL_FETCH_<region>    consumer renderers
 *                                 the fetch nodes that have a browser
 *   crawl.results.<region>.<p>    FetchResult for partition p's owner     stream CRAWL_RESULTS_<region>  consumer results-<p>
 *   crawl.forward.<region>.<to>.<p>  DiscoveredLinks for partition p of    stream CRAWL_FORWARD_<region>  consumer forwarders
 *                                 region <to>, kept in <region> until <to> takes them (its servers were unreachable)
 *   crawl.state.<region>.<p>.batch    partition p's journal rows          stream CRAWL_STATE_<region>    (read from a sequence)
 *   crawl.state.<region>.<p>.claim    who writes partition p from here on stream CRAWL_STATE_<region>
 *   object p-<p> of object store crawl-state-<region>: partition p's latest snapshot
 *
 * Region names and node ids are restricted to `[a-z0-9-]` so they are valid in subjects, stream names and
 * KV keys alike.
 */
export const CLUSTER_BUCKET = "crawl-cluster";

/**
 * The ring's own bucket, holding the key `ring` and nothing else: a ring write names the stream's last
 * sequence, which nats-server checks against every write already proposed (adapters/nats/kv-cluster-state.ts).
 */
export const RING_BUCKET = "crawl-ring";

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
  render: (region: string) => `crawl.fetch.${region}.render`,
  /** Fetch node `node`'s inbox: the tasks of the hosts it is the chosen fetcher of (core/cluster/fetcher-choice.ts). */
  inbox: (region: string, node: string) => `crawl.fetch.${region}.to.${node}`,
  inboxWildcard: (region: string) => `crawl.fetch.${region}.to.*`,
  results: (region: string, partition: number) => `crawl.results.${region}.${partition}`,
  resultsWildcard: (region: string) => `crawl.results.${region}.*`,
  forward: (region: string, to: string, partition: number) => `crawl.forward.${region}.${to}.${partition}`,
  forwardWildcard: (region: string) => `crawl.forward.${region}.>`,
  stateBatch: (region: string, partition: number) => `crawl.state.${region}.${partition}.batch`,
  stateClaim: (region: string, partition: number) => `crawl.state.${region}.${partition}.claim`,
  statePartition: (region: string, partition: number) => `crawl.state.${region}.${partition}.*`,
  stateWildcard: (region: string) => `crawl.state.${region}.>`,
};

export const streams = {
  urls: (region: string) => `CRAWL_URLS_${region.toUpperCase().replace(/-/g, "_")}`,
  fetch: (region: string) => `CRAWL_FETCH_${region.toUpperCase().replace(/-/g, "_")}`,
  results: (region: string) => `CRAWL_RESULTS_${region.toUpperCase().replace(/-/g, "_")}`,
  forward: (region: string) => `CRAWL_FORWARD_${region.toUpperCase().replace(/-/g, "_")}`,
  state: (region: string) => `CRAWL_STATE_${region.toUpperCase().replace(/-/g, "_")}`,
};

/** JetStream object stores: each partition's latest state snapshot, as object `snapshotObject(p)`. */
export const objectStores = {
  state: (region: string) => `crawl-state-${region}`,
  snapshotObject: (partition: number) => `p-${partition}`,
};

export const consumers = {
  urls: (partition: number) => `urls-${partition}`,
  results: (partition: number) => `results-${partition}`,
  fetchers: "fetchers",
  /** Fetch node `node`'s inbox consumer, created by the node at its start (node ids are valid consumer names). */
  inbox: (node: string) => `inbox-${node}`,
  inboxPrefix: "inbox-",
  renderers: "renderers",
  forwarders: "forwarders",
};

export const keys = {
  node: (id: string) => `nodes.${id}`,
  nodePrefix: "nodes.",
  ring: "ring",
  lease: (name: string) => `lease.${name}`,
  /** A scope root (a seed's host name): characters a KV key cannot hold are written `_xx` (hex). */
  scopeRoot: (host: string) => `scope.${host.replace(/[^a-z0-9.-]/g, (c) => `_${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}`,
  scopeRootPrefix: "scope.",
  /** A crawl job's record (core/jobs): ids are `[a-z0-9-]`, valid in a key as they are. */
  job: (id: string) => `jobs.${id}`,
  jobPrefix: "jobs.",
  /** The jobs' page budgets (adapters/nats/kv-job-budget.ts): `budgets.<job>` and `budgets.<job>.<holder>`. */
  budgetPrefix: "budgets.",
};
