import { test } from "bun:test";
import { fetchNodeUploadScenario } from "./fetch-node-upload-scenario.ts";

test("fetch node on Bun - ships WARC files to S3 through normal work, a store outage and a kill mid-upload: nothing lost, nothing twice", async () => {
  await fetchNodeUploadScenario("bun");
}, 240_000);
