import { expect, test } from "bun:test";
import { ReadyQueues, ROBOTS_TURN } from "./ready-queues.ts";

function drain(q: ReadyQueues): string[] {
  const out: string[] = [];
  for (let h = q.shift(); h !== undefined; h = q.shift()) out.push(h);
  return out;
}

test("best level first, first come first served within a level, each host once", () => {
  const q = new ReadyQueues();
  q.push("c", 3);
  q.push("a", 1);
  q.push("b", 2);
  q.push("a2", 1);
  q.push("a", 2); // already ready: stays where it is
  expect(q.size).toBe(4);
  expect(drain(q)).toEqual(["a", "a2", "b", "c"]);
});

test("hosts waiting for their robots.txt get one turn in two while hosts with a known robots.txt are ready", () => {
  expect(ROBOTS_TURN).toBe(2);
  const q = new ReadyQueues();
  for (let i = 0; i < 6; i++) q.push(`new${i}`, 1, true);
  for (let i = 0; i < 3; i++) q.push(`known${i}`, 2);
  expect(drain(q)).toEqual(["known0", "new0", "known1", "new1", "known2", "new2", "new3", "new4", "new5"]);
});

test("with only new hosts ready, every turn goes to their robots.txt; with none, to the known hosts", () => {
  const robotsOnly = new ReadyQueues();
  for (let i = 0; i < 4; i++) robotsOnly.push(`new${i}`, 1, true);
  expect(drain(robotsOnly)).toEqual(["new0", "new1", "new2", "new3"]);
  const knownOnly = new ReadyQueues();
  for (let i = 0; i < 4; i++) knownOnly.push(`known${i}`, 3);
  expect(drain(knownOnly)).toEqual(["known0", "known1", "known2", "known3"]);
});

test("a host taken out is skipped wherever it waited", () => {
  const q = new ReadyQueues();
  q.push("a", 1, true);
  q.push("b", 1);
  expect(q.remove("a")).toBe(true);
  expect(q.has("a")).toBe(false);
  expect(drain(q)).toEqual(["b"]);
});
