import { expect, test } from "bun:test";
import type { ReplicaEntry } from "../../core/ports/index.ts";
import { ReplayRules } from "./replay-rules.ts";

const A = { node: "a", store: "store-a" };
const B = { node: "b", store: "store-b" };

function batch(seq: number, writer: typeof A, epoch: number, rows: number[]): ReplicaEntry {
  return {
    kind: "batch",
    seq,
    writer,
    epoch,
    first: rows[0]!,
    last: rows.at(-1)!,
    body: JSON.stringify(rows.map((n) => [n, [["x", `u${n}`]]])),
  };
}

const claim = (seq: number, writer: typeof A, after: number): ReplicaEntry => ({ kind: "claim", seq, writer, after });

function replay(rules: ReplayRules, entries: ReplicaEntry[]): number[] {
  const out: number[] = [];
  for (const e of entries) for (const r of rules.feed(e)) out.push(r.n);
  for (const item of rules.finish().map((r) => r.n)) out.push(item);
  return out;
}

test("replay - after a claim only the claimant's rows count; a former holder's late rows are skipped", () => {
  const rules = new ReplayRules();
  const applied = replay(rules, [
    claim(1, A, 0),
    batch(2, A, 1, [1, 2]),
    claim(3, B, 10),
    batch(4, A, 1, [3]), // a's late write, after b claimed: b never saw it
    batch(5, B, 3, [11, 12]),
  ]);
  expect(applied).toEqual([1, 2, 11, 12]);
  expect(rules.counts.stale).toBe(1);
});

test("replay - a store's rows of an earlier tenure do not count after its new claim", () => {
  const rules = new ReplayRules();
  const applied = replay(rules, [claim(1, A, 0), batch(2, A, 1, [1]), claim(3, A, 1), batch(4, A, 1, [2]), batch(5, A, 3, [2, 3])]);
  expect(applied).toEqual([1, 2, 3]);
  expect(rules.counts.stale).toBe(1);
});

test("replay - a batch stored twice (sent again after a lost ack) applies once", () => {
  const rules = new ReplayRules();
  const applied = replay(rules, [claim(1, A, 0), batch(2, A, 1, [1, 2]), batch(3, A, 1, [1, 2, 3]), batch(4, A, 1, [3])]);
  expect(applied).toEqual([1, 2, 3]);
  expect(rules.counts.copies).toBe(3);
});

test("replay - rows that come before the rows they follow wait for them, and a gap that never closes is applied in order and counted", () => {
  const closed = new ReplayRules();
  expect(replay(closed, [claim(1, A, 0), batch(2, A, 1, [2, 3]), batch(3, A, 1, [1])])).toEqual([1, 2, 3]);
  expect(closed.counts.gaps).toBe(0);
  const open = new ReplayRules();
  expect(replay(open, [claim(1, A, 0), batch(2, A, 1, [1]), batch(3, A, 1, [3, 4])])).toEqual([1, 3, 4]);
  expect(open.counts.gaps).toBe(2);
});

test("replay - a snapshot starts the rules at its writer and row; rows it covers are not applied again", () => {
  const rules = new ReplayRules({ tenant: { store: A.store, epoch: 1 }, last: 5 });
  expect(replay(rules, [batch(9, A, 1, [5, 6]), batch(10, B, 4, [1]), batch(11, A, 1, [7])])).toEqual([6, 7]);
});

test("replay - a log that starts with no claim takes its first writer as the tenant", () => {
  const rules = new ReplayRules();
  expect(replay(rules, [batch(1, A, 0, [1, 2]), batch(2, B, 0, [1]), claim(3, A, 2), batch(4, A, 3, [3])])).toEqual([1, 2, 3]);
});

test("replay - a batch that is not a list of [n, changes] rows is refused with its sequence", () => {
  const rules = new ReplayRules();
  rules.feed(claim(1, A, 0));
  expect(() => rules.feed({ ...(batch(2, A, 1, [1]) as Extract<ReplicaEntry, { kind: "batch" }>), body: "[[1]]" })).toThrow(/sequence 2/);
  expect(() => rules.feed({ ...(batch(3, A, 1, [1]) as Extract<ReplicaEntry, { kind: "batch" }>), body: "{" })).toThrow(/not JSON/);
});
