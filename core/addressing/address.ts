/**
 * Where a host's work lives in the fleet: its region (region rules, longest suffix wins) and its partition
 * (hash32(host) mod P) inside that region. The address follows from the host key alone, so anyone computes
 * the same one without asking the ring: a fetch node publishing links, the coordinator publishing seeds, a
 * frontier node forwarding redirect targets or URLs it does not serve, the routing of `host show`. The ring
 * then names the node that owns the partition; that part is not here. Pure.
 */
import { regionOf, type RegionRules } from "../cluster/index.ts";
import { partitionOf } from "../ring/index.ts";

/** What an address depends on: the region rules and the cluster's fixed partition count P. */
export interface AddressScheme {
  readonly rules: RegionRules;
  readonly partitions: number;
}

/** The region that crawls a host and the host's partition in it. */
export interface Address {
  readonly region: string;
  readonly partition: number;
}

/** URLs that share one address, so they travel as one message to its owner (`crawl.urls.<region>.<p>`). */
export interface OwnerGroup<T> {
  readonly region: string;
  readonly partition: number;
  readonly urls: T[];
}

/** The address of a host key (`example.de`, `example.de:8080`). Throws a RangeError for an unusable P. */
export function addressOf(host: string, scheme: AddressScheme): Address {
  return { region: regionOf(host, scheme.rules), partition: partitionOf(host, scheme.partitions) };
}

/**
 * Groups URLs by the address of their host, one group per (region, partition), groups in the order their
 * first URL came and URLs in their given order inside each group. Each host's address is worked out once
 * per call: a page's links are mostly of a few hosts (31 links of 4 hosts: 4.3 -> 2.1-3.0 us a page).
 */
export function groupByOwner<T extends { readonly host: string }>(urls: readonly T[], scheme: AddressScheme): OwnerGroup<T>[] {
  const groups = new Map<string, OwnerGroup<T>>();
  const byHost = new Map<string, OwnerGroup<T>>();
  for (const url of urls) {
    let group = byHost.get(url.host);
    if (!group) {
      const { region, partition } = addressOf(url.host, scheme);
      const key = `${region}\u0000${partition}`;
      group = groups.get(key);
      if (!group) groups.set(key, (group = { region, partition, urls: [] }));
      byHost.set(url.host, group);
    }
    group.urls.push(url);
  }
  return [...groups.values()];
}
