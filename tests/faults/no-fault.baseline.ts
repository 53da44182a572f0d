/**
 * The suite's baseline: the same cluster and crawl as every row, with no fault. Every expected page is
 * fetched once, no host is asked too soon, and nothing is logged as a bare error. The rows compare with it:
 * the synthetic web is fixed, so a row's "distinct pages within a few percent of a run without the fault"
 * is met exactly when it fetches every expected page, as this run does (`bun run bench:faults` shows the two
 * side by side).
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();

describe("fault: none (baseline)", () => {
  test(
    "with no fault the suite's crawl fetches every expected page once, politely",
    async () => {
      const run = await crawlThroughFault(cluster, {
        inject: async () => {
          const now = logClock();
          return { killedAt: now, backAt: now };
        },
      });
      console.log(describeRun("none", run));
      expectNothingLost(run);
      expect(run.twice).toEqual({});
    },
    ROW_TIMEOUT_MS,
  );
});
