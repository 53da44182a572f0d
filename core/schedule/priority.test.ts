import { expect, test } from "bun:test";
import { admissionPriority, priorityFor } from "./priority.ts";

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

test("priority - media files and links found on a near duplicate are admitted at the third level; home pages keep the first", () => {
  expect(admissionPriority({ isHomePage: false, depth: 1 })).toBe(2);
  expect(admissionPriority({ isHomePage: false, depth: 1, kind: "media" })).toBe(3);
  expect(admissionPriority({ isHomePage: false, depth: 1, foundOnNearDuplicate: true })).toBe(3);
  expect(admissionPriority({ isHomePage: true, depth: 1, foundOnNearDuplicate: true })).toBe(1);
  expect(admissionPriority({ isHomePage: false, depth: 9 })).toBe(3);
});
