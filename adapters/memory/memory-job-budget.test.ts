/**
 * What MemoryJobBudget adds to the JobBudget contract (tests/contract/job-budget.contract.test.ts) for
 * `crawl`, one process: a pool made after a restart starts from maxPages minus the pages already counted,
 * and units spent on tasks given back with no result return to the pool, never past maxPages.
 */
import { describe, expect, test } from "bun:test";
import { MemoryJobBudget } from "./memory-job-budget.ts";

const chunk = (n: number) => () => n;

describe("MemoryJobBudget for one process", () => {
  test("memory budget - a pool made with pages already counted grants only the rest", async () => {
    const budget = new MemoryJobBudget({ spentBefore: (job) => (job === 3 ? 7 : 0) });
    expect(await budget.take(3, 10, "local", chunk(64))).toEqual({ held: 3, left: 0 });
    expect(await budget.take(4, 10, "local", chunk(64))).toEqual({ held: 10, left: 0 });
    // More counted than the limit (a limit lowered by hand, or counted past it before budgets): nothing.
    const over = new MemoryJobBudget({ spentBefore: () => 12 });
    expect(await over.take(1, 10, "local", chunk(64))).toEqual({ held: 0, left: 0 });
  });

  test("memory budget - units spent on tasks given back return to the pool, at most those spent", async () => {
    const budget = new MemoryJobBudget();
    expect(await budget.unspend(1, 1)).toBe(0); // no pool: a job without maxPages
    await budget.take(1, 5, "local", chunk(4));
    expect(await budget.settle(1, "local", 3)).toBe(1);
    expect(await budget.unspend(1, 2)).toBe(2);
    expect(await budget.read(1)).toEqual({ maxPages: 5, left: 3, held: 1 });
    expect(await budget.unspend(1, 5)).toBe(1); // only 1 unit is still spent
    expect(await budget.read(1)).toEqual({ maxPages: 5, left: 4, held: 1 });
  });
});
