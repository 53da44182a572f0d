/**
 * The per-address board: what one server's row counts, the busiest first, and its bounds: a quiet row goes
 * after idleMs, a full board makes room from its quiet end, and a busy server keeps its row.
 */
import { describe, expect, test } from "bun:test";
import { AddressBoard } from "./address-board.ts";

function setup(opts: { capacity?: number; idleMs?: number } = {}) {
  const clock = { now: 1_000 };
  return { clock, board: new AddressBoard({ ...opts, now: () => clock.now }) };
}

describe("address board", () => {
  test("address board - counts passes, waits, requests given back and the longest wait per server; a request given back is not a wait", () => {
    const { board, clock } = setup();
    board.passed("ip:10.0.0.1", 0.2); // at once: no wait
    clock.now += 10;
    board.passed("ip:10.0.0.1", 250);
    board.gaveUp("ip:10.0.0.1", 5_000);
    board.passed("ip:10.0.0.2", 0);
    expect(board.top(10)).toEqual([
      // One pass waited 250 ms; the request given back after 5 s counts there alone (and as the longest wait).
      { server: "ip:10.0.0.1", passes: 2, waits: 1, givenBack: 1, longestWaitMs: 5_000, since: 1_000, lastAt: 1_010 },
      { server: "ip:10.0.0.2", passes: 1, waits: 0, givenBack: 0, longestWaitMs: 0, since: 1_010, lastAt: 1_010 },
    ]);
    expect(board.get("ip:10.0.0.2")?.passes).toBe(1);
    expect(board.top(1).map((r) => r.server)).toEqual(["ip:10.0.0.1"]);
  });

  test("address board - a server quiet for idleMs leaves the board", () => {
    const { board, clock } = setup({ idleMs: 60_000 });
    board.passed("ip:10.0.0.1", 5);
    clock.now += 60_000;
    expect(board.top(10)).toEqual([]);
    expect(board.get("ip:10.0.0.1")).toBeUndefined();
    board.passed("ip:10.0.0.2", 5); // each call drops a few quiet rows
    expect(board.size).toBe(1);
  });

  test("address board - a million servers keep it at its capacity, and the busy one keeps its row and counts", () => {
    const { board, clock } = setup({ capacity: 100 });
    for (let i = 0; i < 1_000_000; i++) {
      clock.now++;
      board.passed(`ip:${i}`, 0);
      if (i % 50 === 0) board.passed("ip:busy", 20);
      expect(board.size).toBeLessThanOrEqual(100);
    }
    expect(board.top(1)).toEqual([expect.objectContaining({ server: "ip:busy", passes: 20_000, waits: 20_000 })]);
  }, 30_000);
});
