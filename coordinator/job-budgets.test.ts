/**
 * The coordinator's part of the page budgets (job-budgets.ts): the custody of a frontier node that is not a
 * live member goes back to the pool, and a job whose budget is spent ends once its count has stood still.
 */
import { describe, expect, test } from "bun:test";
import { MemoryJobBudget } from "../adapters/memory/index.ts";
import type { NodeRecord } from "../core/cluster/index.ts";
import type { JobRecord } from "../core/jobs/index.ts";
import { BudgetKeeper, RECLAIM_EVERY_MS, SETTLE_MS } from "./job-budgets.ts";
import type { Member, MemberState } from "./membership.ts";

const member = (id: string, state: MemberState, role: NodeRecord["role"] = "frontier"): Member =>
  ({ record: { id, role } as NodeRecord, state, heartbeatAgeMs: 0 }) as Member;

const job = (maxPages: number): JobRecord => ({ id: "news", number: 1, state: "running", maxPages }) as JobRecord;
const all = () => 1_000;

describe("coordinator page budgets", () => {
  test("budgets - a frontier node dead, left or without a record has its unspent budget reclaimed; live and draining ones keep theirs", async () => {
    const budget = new MemoryJobBudget();
    for (const holder of ["live", "draining", "dead", "gone"]) {
      await budget.take(1, 100, holder, () => 10);
      await budget.settle(1, holder, 4);
    }
    const keeper = new BudgetKeeper(budget);
    const reclaimed = await keeper.reclaimLost([member("live", "live"), member("draining", "draining"), member("dead", "dead")], 0);
    expect(Object.fromEntries(reclaimed)).toEqual({ dead: 6, gone: 6 });
    expect(await budget.read(1)).toEqual({ maxPages: 100, left: 72, held: 12 });
    expect((await budget.holders()).sort()).toEqual(["draining", "live"]);
    // A fetch node of the same id is no frontier: it holds nothing anyway, and does not keep a holder's custody.
    expect(Object.fromEntries(await keeper.reclaimLost([member("live", "live", "fetcher"), member("draining", "live")], 1))).toEqual({
      live: 6,
    });
  });

  test("budgets - the holders are listed again when the live frontier nodes change, else every RECLAIM_EVERY_MS", async () => {
    const budget = new MemoryJobBudget();
    const keeper = new BudgetKeeper(budget);
    const members = [member("a", "live")];
    expect(await keeper.reclaimLost(members, 0)).toEqual(new Map());
    // A holder that no member names appears (its record already gone): the live nodes did not change.
    await budget.take(1, 10, "b", () => 4);
    expect(await keeper.reclaimLost(members, 1_000)).toEqual(new Map());
    expect(await keeper.reclaimLost(members, RECLAIM_EVERY_MS)).toEqual(new Map([["b", 4]]));
    // A live node found dead: looked at at once.
    await budget.take(1, 10, "a", () => 3);
    expect(await keeper.reclaimLost([member("a", "dead")], RECLAIM_EVERY_MS + 1)).toEqual(new Map([["a", 3]]));
  });

  test("budgets - a job ends once its budget is spent and its page count has not moved for SETTLE_MS", async () => {
    const budget = new MemoryJobBudget();
    const keeper = new BudgetKeeper(budget);
    expect(await keeper.spentOut(job(5), 0, 0)).toBe(false); // never taken
    await budget.take(1, 5, "a", all);
    expect(await keeper.spentOut(job(5), 0, 0)).toBe(false); // held, not spent
    await budget.settle(1, "a", 5);
    expect(await keeper.spentOut(job(5), 3, 1_000)).toBe(false); // spent: the count is watched from here
    expect(await keeper.spentOut(job(5), 4, 1_000 + SETTLE_MS)).toBe(false); // it moved: watched again
    expect(await keeper.spentOut(job(5), 4, 1_000 + 2 * SETTLE_MS - 1)).toBe(false);
    expect(await keeper.spentOut(job(5), 4, 1_000 + 2 * SETTLE_MS)).toBe(true);
    expect(await keeper.spentOut(job(0), 4, 1_000 + 3 * SETTLE_MS)).toBe(false); // no maxPages
  });
});
