import { expect, test } from "bun:test";
import { priorityFor } from "./priority.ts";

test("priority - home pages go to the first queue whatever their depth", () => {
  expect(priorityFor({ isHomePage: true, changedLastVisit: false, depth: 0 })).toBe(1);
  expect(priorityFor({ isHomePage: true, changedLastVisit: false, depth: 15 })).toBe(1);
});

test("priority - pages that changed at the last visit go to the first queue", () => {
  expect(priorityFor({ isHomePage: false, changedLastVisit: true, depth: 12 })).toBe(1);
});

test("priority - pages at most three links from a seed go to the second queue, deeper ones to the third", () => {
  expect(priorityFor({ isHomePage: false, changedLastVisit: false, depth: 0 })).toBe(2);
  expect(priorityFor({ isHomePage: false, changedLastVisit: false, depth: 3 })).toBe(2);
  expect(priorityFor({ isHomePage: false, changedLastVisit: false, depth: 4 })).toBe(3);
});

test("priority - the shallow depth is configurable", () => {
  expect(priorityFor({ isHomePage: false, changedLastVisit: false, depth: 4 }, { shallowDepth: 5 })).toBe(2);
  expect(priorityFor({ isHomePage: false, changedLastVisit: false, depth: 1 }, { shallowDepth: 0 })).toBe(3);
});
