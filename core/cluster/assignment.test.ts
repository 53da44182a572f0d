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
