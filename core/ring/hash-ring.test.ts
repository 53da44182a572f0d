import { expect, test } from "bun:test";
import { HashRing } from "./index.ts";
import { maxOf } from "../stats/index.ts";

const P = 4096;
const node = (i: number) => `frontier-${i}`;

function ringOf(ids: string[], vnodes?: number): HashRing {
  const ring = new HashRing({ vnodes });
  for (const id of ids) ring.add(id);
  return ring;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => node(i + 1));

test("HashRing - the assignment depends only on the set of nodes, not on the order they joined", () => {
  const forward = ringOf(ids(7));
  const backward = ringOf(ids(7).reverse());
  const churned = ringOf([...ids(9), "temp"]);
  churned.remove(node(8));
  churned.remove("temp");
  churned.remove(node(9));
  expect(backward.assign(P)).toEqual(forward.assign(P));
  expect(churned.assign(P)).toEqual(forward.assign(P));
  expect(forward.nodes).toEqual(ids(7).sort());
});

test("HashRing - adding a node to N moves about P/(N+1) partitions, all of them to the new node", () => {
  for (let n = 1; n <= 8; n++) {
    const ring = ringOf(ids(n));
    const before = ring.assign(P);
    ring.add(node(n + 1));
    const after = ring.assign(P);
    let moved = 0;
    for (let p = 0; p < P; p++) {
      if (before.get(p) !== after.get(p)) {
        moved++;
        expect(after.get(p)).toBe(node(n + 1));
      }
    }
    const expected = P / (n + 1);
    expect(Math.abs(moved - expected) / expected).toBeLessThan(0.35);
  }
});

test("HashRing - removing a node moves only that node's partitions, spread over the others", () => {
  const ring = ringOf(ids(6));
  const before = ring.assign(P);
  ring.remove(node(3));
  const after = ring.assign(P);
  const receivers = new Set<string>();
  for (let p = 0; p < P; p++) {
    if (before.get(p) === node(3)) receivers.add(after.get(p)!);
    else expect(after.get(p)).toBe(before.get(p)!);
  }
  expect(receivers.has(node(3))).toBe(false);
  expect(receivers.size).toBe(5);
});

test("HashRing - 128 virtual nodes keep the busiest of 10 nodes within 1.35x the mean", () => {
  const load = new Map<string, number>();
  for (const owner of ringOf(ids(10)).assign(P).values()) load.set(owner, (load.get(owner) ?? 0) + 1);
  expect(load.size).toBe(10);
  const max = maxOf(load.values());
  expect(max / (P / 10)).toBeLessThan(1.35);
});

test("HashRing - ownerOfPartition agrees with assign", () => {
  const ring = ringOf(ids(5));
  const all = ring.assign(P);
  for (let p = 0; p < P; p += 17) expect(ring.ownerOfPartition(p)).toBe(all.get(p)!);
});

test("HashRing - an empty ring owns nothing; adding twice or removing a stranger changes nothing", () => {
  const ring = new HashRing();
  expect(ring.ownerOfPartition(0)).toBeUndefined();
  expect(ring.assign(16).size).toBe(0);
  expect(ring.add("a")).toBe(true);
  const before = ring.assign(64);
  expect(ring.add("a")).toBe(false);
  expect(ring.remove("b")).toBe(false);
  expect(ring.assign(64)).toEqual(before);
  expect(new Set(before.values())).toEqual(new Set(["a"]));
  expect(ring.size).toBe(1);
});

test("HashRing - rejects bad node ids, partition ids and vnode counts", () => {
  const ring = ringOf(["a"]);
  expect(() => ring.add("")).toThrow(TypeError);
  expect(() => ring.ownerOfPartition(-1)).toThrow(RangeError);
  expect(() => ring.ownerOfPartition(0.5)).toThrow(RangeError);
  expect(() => ring.assign(0)).toThrow(RangeError);
  expect(() => new HashRing({ vnodes: 0 })).toThrow(RangeError);
});
