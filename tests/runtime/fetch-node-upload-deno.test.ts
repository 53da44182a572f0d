import { test } from "bun:test";
import { requireDeno } from "./fetch-node-harness.ts";
import { fetchNodeUploadScenario } from "./fetch-node-upload-scenario.ts";

// Deno is part of the platform (CI installs it): its absence fails this test rather than skipping it or
// running the scenario on Bun instead.
test("fetch node on Deno - ships WARC files to S3 through normal work, a store outage and a kill mid-upload: nothing lost, nothing twice", async () => {
  requireDeno();
  await fetchNodeUploadScenario("deno");
}, 240_000);
