/**
 * Addresses discovered links: each link goes to the partition that owns its host, in the region that
 * crawls its host (region rules, then partition = hash(host) mod P, core/cluster and core/ring). Anyone
 * computes the same address from the host alone, so no ring lookup is needed. Pure.
 */
import { regionOf, type RegionRules } from "../core/cluster/index.ts";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";

export interface LinkGroup {
  region: string;
  partition: number;
  urls: DiscoveredUrl[];
}

/** Groups `links` by (region of host, partition of host), keeping their order inside each group. */
export function routeLinks(links: readonly DiscoveredUrl[], rules: RegionRules, partitions: number): LinkGroup[] {
  const groups = new Map<string, LinkGroup>();
  for (const link of links) {
    const region = regionOf(link.host, rules);
    const partition = partitionOf(link.host, partitions);
    const key = `${region}\u0000${partition}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { region, partition, urls: [] }));
    group.urls.push(link);
  }
  return [...groups.values()];
}
