import { describe, expect, test } from "bun:test";
import { completeHandoff, computeRing, partitionRoles } from "./assignment.ts";

const P = 64;
const input = (ids: string[], reachable = ids) => ({ partitions: P, vnodes: 64, live: { us: ids }, reachable: new Set(reachable) });

describe("ring assignment", () => {
  test("ring - every partition of a region gets a live owner and nothing to hand over at first", () => {
    const ring = computeRing(undefined, input(["a", "b"]));
    expect(ring.regions.us!.owners.every((o) => o === "a" || o === "b")).toBe(true);
    expect(ring.regions.us!.previous.every((p) => p === "")).toBe(true);
    expect(ring.epoch).toBe(1);
  });

  test("ring - a joining node takes about a third from two and each moved partition names its giver", () => {
    const before = computeRing(undefined, input(["a", "b"]));
    const after = computeRing(before, input(["a", "b", "c"]));
    const moved = after.regions.us!.owners.map((o, p) => [o, before.regions.us!.owners[p]] as const).filter(([o, b]) => o !== b);
    expect(moved.length).toBeGreaterThan(P / 3 - 12);
    expect(moved.length).toBeLessThan(P / 3 + 12);
    for (const [owner] of moved) expect(owner).toBe("c");
    after.regions.us!.owners.forEach((o, p) => {
      if (o !== before.regions.us!.owners[p]) expect(after.regions.us!.previous[p]).toBe(before.regions.us!.owners[p]!);
    });
    expect(after.epoch).toBe(2);
  });

  test("ring - partitions of a dead node move at once, with nothing to wait for", () => {
    const before = computeRing(undefined, input(["a", "b", "c"]));
    const after = computeRing(before, input(["a", "b"], ["a", "b"]));
    before.regions.us!.owners.forEach((o, p) => {
      if (o === "c") expect(after.regions.us!.previous[p]).toBe("");
      else expect(after.regions.us!.owners[p]).toBe(o);
    });
  });

  test("ring - a region whose every node is dead keeps its owners (nobody else could serve them), until a node joins it", () => {
    const before = computeRing(undefined, { partitions: P, vnodes: 64, live: { us: ["a"], eu: ["e"] }, reachable: new Set(["a", "e"]) });
    // eu's only node is gone (a cut region, a paused node): its ring stays, and the ring's epoch with it.
    const cut = computeRing(before, { partitions: P, vnodes: 64, live: { us: ["a"] }, reachable: new Set(["a"]) });
    expect(cut.regions.eu).toEqual(before.regions.eu!);
    expect(cut.regions.eu!.owners.every((o) => o === "e")).toBe(true);
    expect(cut.epoch).toBe(before.epoch);
    // The same while a region sorted before it changes.
    const alsoAp = computeRing(before, { partitions: P, vnodes: 64, live: { ap: ["p"], us: ["a"] }, reachable: new Set(["a", "p"]) });
    expect(alsoAp.regions.eu).toEqual(before.regions.eu!);
    expect(alsoAp.regions.ap!.owners.every((o) => o === "p")).toBe(true);
    // A node joining eu meanwhile takes every partition, as from a dead node: nothing to wait for.
    const joined = computeRing(cut, { partitions: P, vnodes: 64, live: { us: ["a"], eu: ["f"] }, reachable: new Set(["a", "f"]) });
    expect(joined.regions.eu!.owners.every((o) => o === "f")).toBe(true);
    expect(joined.regions.eu!.previous.every((p) => p === "")).toBe(true);
    // A new partition count cannot keep anything.
    const resized = computeRing(before, { partitions: P * 2, vnodes: 64, live: { us: ["a"] }, reachable: new Set(["a"]) });
    expect(resized.regions.eu!.owners).toEqual(new Array(P * 2).fill(""));
  });

  test("ring - an unchanged membership keeps the epoch", () => {
    const before = computeRing(undefined, input(["a", "b"]));
    expect(computeRing(before, input(["a", "b"])).epoch).toBe(before.epoch);
  });

  test("ring - roles split partitions into serve, hand off and await, and a completed handoff serves", () => {
    const before = computeRing(undefined, input(["a", "b"]));
    const after = computeRing(before, input(["a", "b", "c"]));
    const c = partitionRoles(after, "us", "c");
    expect(c.serve).toEqual([]);
    expect(c.await.length).toBeGreaterThan(0);
    const givers = partitionRoles(after, "us", "a").handOff.length + partitionRoles(after, "us", "b").handOff.length;
    expect(givers).toBe(c.await.length);
    const done = completeHandoff(after, "us", c.await[0]!);
    expect(partitionRoles(done, "us", "c").serve).toEqual([c.await[0]!]);
  });
});
