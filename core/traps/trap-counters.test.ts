import { expect, test } from "bun:test";
import { trapCounterName } from "./trap-counters.ts";

test("trap counters - stat names are namespaced", () => {
  expect(trapCounterName("url-too-long")).toBe("traps.rejected.url-too-long");
});
