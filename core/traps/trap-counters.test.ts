import { expect, test } from "bun:test";
import { countTrap, emptyTrapCounters, mergeTrapCounters, trapCounterName } from "./trap-counters.ts";

test("trap counters - count refusals by reason and ignore acceptances", () => {
  let counters = emptyTrapCounters();
  counters = countTrap(counters, { ok: false, reason: "too-deep", detail: "" });
  counters = countTrap(counters, "too-deep");
  counters = countTrap(counters, "url-too-long");
  const before = counters;
  counters = countTrap(counters, { ok: true });
  expect(counters).toBe(before);
  expect(counters).toEqual({ "too-deep": 2, "url-too-long": 1 });
});

test("trap counters - counting returns a new object and leaves the old one as it was", () => {
  const first = countTrap(emptyTrapCounters(), "host-queue-full");
  const second = countTrap(first, "host-queue-full");
  expect(first).toEqual({ "host-queue-full": 1 });
  expect(second).toEqual({ "host-queue-full": 2 });
});

test("trap counters - counters from several nodes merge by adding", () => {
  expect(mergeTrapCounters({ "too-deep": 2 }, { "too-deep": 1, "host-daily-cap": 4 }, {})).toEqual({
    "too-deep": 3,
    "host-daily-cap": 4,
  });
});

test("trap counters - stat names are namespaced", () => {
  expect(trapCounterName("url-too-long")).toBe("traps.rejected.url-too-long");
});
