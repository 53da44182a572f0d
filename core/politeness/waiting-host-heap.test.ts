import { expect, test } from "bun:test";
import { WaitingHostHeap } from "./waiting-host-heap.ts";
import { minOf } from "../stats/index.ts";

function drain(heap: WaitingHostHeap): string[] {
  const out: string[] = [];
  for (let entry = heap.pop(); entry; entry = heap.pop()) out.push(`${entry.host}@${entry.at}`);
  return out;
}

test("waiting host heap - pops hosts in order of next allowed time", () => {
  const heap = new WaitingHostHeap();
  heap.push("c.test", 30);
  heap.push("a.test", 10);
  heap.push("b.test", 20);
  expect(heap.size).toBe(3);
  expect(heap.peek()).toEqual({ host: "a.test", at: 10 });
  expect(drain(heap)).toEqual(["a.test@10", "b.test@20", "c.test@30"]);
  expect(heap.pop()).toBeUndefined();
  expect(heap.peek()).toBeUndefined();
});

test("waiting host heap - equal times come out first in, first out", () => {
  const heap = new WaitingHostHeap();
  for (const host of ["x", "y", "z", "w"]) heap.push(host, 0);
  expect(drain(heap)).toEqual(["x@0", "y@0", "z@0", "w@0"]);
});

test("waiting host heap - update moves a host earlier or later", () => {
  const heap = new WaitingHostHeap();
  heap.push("a", 10);
  heap.push("b", 20);
  heap.push("c", 30);
  expect(heap.update("c", 5)).toBe(true);
  expect(heap.update("a", 40)).toBe(true);
  expect(heap.update("missing", 1)).toBe(false);
  expect(heap.get("a")).toBe(40);
  expect(drain(heap)).toEqual(["c@5", "b@20", "a@40"]);
});

test("waiting host heap - push of a host already in acts as an update, never a duplicate", () => {
  const heap = new WaitingHostHeap();
  heap.push("a", 10);
  heap.push("a", 50);
  heap.push("b", 20);
  expect(heap.size).toBe(2);
  expect(drain(heap)).toEqual(["b@20", "a@50"]);
});

test("waiting host heap - remove takes out any host, first, middle or last", () => {
  const heap = new WaitingHostHeap();
  for (const [host, at] of [
    ["a", 1],
    ["b", 2],
    ["c", 3],
    ["d", 4],
    ["e", 5],
  ] as const)
    heap.push(host, at);
  expect(heap.remove("c")).toBe(true);
  expect(heap.remove("a")).toBe(true);
  expect(heap.remove("e")).toBe(true);
  expect(heap.remove("c")).toBe(false);
  expect(heap.has("c")).toBe(false);
  expect(drain(heap)).toEqual(["b@2", "d@4"]);
});

test("waiting host heap - popReady returns only a host whose time has come", () => {
  const heap = new WaitingHostHeap();
  heap.push("a", 100);
  expect(heap.popReady(99)).toBeUndefined();
  expect(heap.size).toBe(1);
  expect(heap.popReady(100)).toEqual({ host: "a", at: 100 });
  expect(heap.size).toBe(0);
});

test("waiting host heap - stays ordered through many random pushes, updates and removals", () => {
  // A small deterministic generator keeps the test repeatable.
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const heap = new WaitingHostHeap();
  const model = new Map<string, number>();
  for (let step = 0; step < 5_000; step++) {
    const host = `h${random(300)}`;
    const action = random(4);
    if (action < 2) {
      const at = random(1_000);
      heap.push(host, at);
      model.set(host, at);
    } else if (action === 2) {
      expect(heap.remove(host)).toBe(model.delete(host));
    } else {
      const top = heap.pop();
      if (model.size === 0) expect(top).toBeUndefined();
      else {
        expect(top?.at).toBe(minOf(model.values()));
        model.delete(top?.host as string);
      }
    }
    expect(heap.size).toBe(model.size);
  }
  const rest = drain(heap).map((entry) => Number(entry.split("@")[1]));
  expect(rest).toEqual([...model.values()].sort((a, b) => a - b));
});

test("waiting host heap - pops exactly by time then push order through random moves, with get and has kept", () => {
  // Few distinct times, so ties are common: a host moved to a new time queues behind the hosts already there.
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const heap = new WaitingHostHeap();
  const model = new Map<string, { at: number; order: number }>();
  let order = 0;
  const first = () => [...model].sort((a, b) => a[1].at - b[1].at || a[1].order - b[1].order)[0];
  for (let step = 0; step < 4_000; step++) {
    const host = `h${random(200)}`;
    const action = random(5);
    if (action < 2) {
      const at = random(8);
      const known = model.get(host);
      if (action === 0) heap.push(host, at);
      else expect(heap.update(host, at)).toBe(known !== undefined);
      if (action === 0 || known) {
        // An unchanged time keeps the host's place; a new time puts it behind the hosts already at that time.
        if (known?.at !== at) model.set(host, { at, order: order++ });
      }
    } else if (action === 2) {
      expect(heap.remove(host)).toBe(model.delete(host));
    } else if (action === 3) {
      const now = random(8);
      const expected = first();
      const due = expected !== undefined && expected[1].at <= now ? expected : undefined;
      expect(heap.popReady(now)?.host).toBe(due?.[0]);
      if (due) model.delete(due[0]);
    } else {
      const expected = first();
      const top = heap.pop();
      expect(top && [top.host, top.at]).toEqual(expected && [expected[0], expected[1].at]);
      if (expected) model.delete(expected[0]);
    }
    expect(heap.size).toBe(model.size);
    expect(heap.get(host)).toBe(model.get(host)?.at);
    expect(heap.has(host)).toBe(model.has(host));
  }
});
