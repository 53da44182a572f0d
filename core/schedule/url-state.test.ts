import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { newUrlState } from "./url-state.ts";

const T0 = 1_700_000_000_000;
const CFG = DEFAULT_POLICY;

test("url state - a new URL is due at once with the initial interval", () => {
  const state = newUrlState({ depth: 0, isHomePage: true }, T0, CFG);
  expect(state).toMatchObject({ status: "queued", nextFetchAt: T0, failures: 0, refetchIntervalMs: CFG.refetchInitialMs, priority: 1 });
  expect(JSON.parse(JSON.stringify(state))).toEqual(state);
});

test("url state - a new deep page starts in the third queue", () => {
  expect(newUrlState({ depth: 9, isHomePage: false }, T0, CFG).priority).toBe(3);
});
