import { test } from "bun:test";
import { fetchNodeScenario } from "./fetch-node-scenario.ts";

test("fetch node on Bun - takes tasks from JetStream, publishes links and results, writes WARC, stops cleanly", async () => {
  await fetchNodeScenario("bun");
}, 90_000);
