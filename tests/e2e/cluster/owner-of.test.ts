/**
 * The cluster tests' `ownerOf` (coordinator.ts) names the frontier node that owns a host as the fleet
 * places it: by the ring's politeness key. With `domain`, every host of a registrable domain is owned by the
 * node of the domain's partition; a lookup by the host's own hash would name other nodes for most of them.
 */
import { describe, expect, test } from "bun:test";
import { partitionOf } from "../../../core/ring/index.ts";
import { ownerOf, REGION, type RingView } from "./coordinator.ts";

const P = 64;
// One owner per partition, so the owner named tells the partition used.
const owners = Array.from({ length: P }, (_, i) => `frontier-${i}`);
const ring = (politenessKey?: RingView["politenessKey"]): RingView => ({
  epoch: 1,
  partitions: P,
  revision: 1,
  ...(politenessKey && { politenessKey }),
  regions: { [REGION]: { owners, previous: [] } },
});
const hosts = Array.from({ length: 20 }, (_, i) => `site${i}.blog.example`);

describe("ownerOf in cluster tests", () => {
  test("with --politeness-key domain, every host of a domain is owned by the domain's node", () => {
    const domainOwner = owners[partitionOf("blog.example", P)]!;
    expect(hosts.map((h) => ownerOf(ring("domain"), h))).toEqual(hosts.map(() => domainOwner));
    // The hosts' own partitions are spread, so a lookup by host would have named other nodes.
    expect(new Set(hosts.map((h) => partitionOf(h, P))).size).toBeGreaterThan(1);
  });

  test("with the default key (none on the ring), a host is owned by its own partition's node", () => {
    expect(hosts.map((h) => ownerOf(ring(), h))).toEqual(hosts.map((h) => owners[partitionOf(h, P)]!));
  });
});
