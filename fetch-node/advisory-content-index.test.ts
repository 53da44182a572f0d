/**
 * The fetch node's content index is a cache: when Redis cannot answer, a page is new content (undefined),
 * the unanswered claims are counted, and the outage is logged once when it starts and once when it ends.
 */
import { expect, test } from "bun:test";
import { MemoryContentIndex } from "../adapters/memory/index.ts";
import type { ContentIndex, Log, LogFields } from "../core/ports/index.ts";
import { Counters } from "../core/stats/index.ts";
import { AdvisoryContentIndex } from "./advisory-content-index.ts";

function recordingLog(lines: Array<{ level: string; message: string; fields?: LogFields }>): Log {
  const log: Log = {
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
    child: () => log,
  };
  return log;
}

test("advisory content index - an index that cannot answer makes a page new content, counted and logged once per outage", async () => {
  const memory = new MemoryContentIndex();
  let down = false;
  const flaky: ContentIndex = {
    claimExact: (fp, url) => (down ? Promise.reject(new Error("not sent within 5000 ms")) : memory.claimExact(fp, url)),
    claimNear: (hash, url) => (down ? Promise.reject(new Error("not sent within 5000 ms")) : memory.claimNear(hash, url)),
    close: () => memory.close(),
  };
  const counters = new Counters();
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const index = new AdvisoryContentIndex(flaky, { counters, log: recordingLog(lines) });

  expect(await index.claimExact("fp1", "https://a.test/")).toBeUndefined();
  expect(await index.claimExact("fp1", "https://b.test/")).toBe("https://a.test/");
  down = true;
  expect(await index.claimExact("fp1", "https://c.test/")).toBeUndefined();
  expect(await index.claimNear(5n, "https://c.test/")).toBeUndefined();
  expect(counters.get("fetcher.content-index.unanswered")).toBe(2);
  down = false;
  expect(await index.claimExact("fp1", "https://d.test/")).toBe("https://a.test/");
  expect(lines.map((l) => `${l.level}: ${l.message}`)).toEqual([
    "warn: the content index cannot answer; pages are stored as new content until it can",
    "info: the content index answers again",
  ]);
  expect((lines[0]!.fields?.error as { message: string }).message).toBe("not sent within 5000 ms");
  await index.close();
});
