/**
 * Where a host's work lives in the fleet: its region (region rules, longest suffix wins) and its partition
 * (hash32(key) mod P) inside that region, both worked out from the host's politeness key
 * (core/politeness/politeness-key.ts): the host itself by default, its registrable domain with
 * `--politeness-key domain`, so one frontier node owns every host of a domain and keeps their one request
 * at a time, and a domain's hosts are never split across regions (a region rule naming a name below a
 * registrable domain does not split it: the domain's own region wins). The address follows from the host key alone, so anyone computes
 * the same one without asking the ring: a fetch node publishing links, the coordinator publishing seeds, a
 * frontier node forwarding redirect targets or URLs it does not serve, the routing of `host show`. The ring
 * then names the node that owns the partition; that part is not here. Pure.
 */
import { regionOf, type RegionRules } from "../cluster/index.ts";
import { frontierKeyOf, type PolitenessKeyMode } from "../politeness/index.ts";
import { partitionOf } from "../ring/index.ts";

/**
 * What an address depends on: the region rules, the cluster's fixed partition count P and its politeness
 * key (absent: `host`). All three are fixed for the cluster's life (the ring holds P and the key).
 */
export interface AddressScheme {
  readonly rules: RegionRules;
  readonly partitions: number;
  readonly politenessKey?: PolitenessKeyMode;
}

/** The partition of a host key: that of its politeness key. Every process places hosts by this alone. */
export function hostPartition(host: string, scheme: Pick<AddressScheme, "partitions" | "politenessKey">): number {
  return partitionOf(frontierKeyOf(host, scheme.politenessKey ?? "host"), scheme.partitions);
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
  const key = frontierKeyOf(host, scheme.politenessKey ?? "host");
  return { region: regionOf(key, scheme.rules), partition: partitionOf(key, scheme.partitions) };
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
