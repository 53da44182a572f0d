import { describe, expect, test } from "bun:test";
import { SeqClock } from "./seq-clock.ts";

describe("seq clock", () => {
  test("seq clock - a seq queued in a second is dated to that second's first mark", () => {
    const c = new SeqClock();
    c.mark(10, 1_000);
    c.mark(11, 1_500);
    c.mark(12, 2_100);
    expect(c.queuedAt(10)).toBe(1_000);
    expect(c.queuedAt(11)).toBe(1_000);
    expect(c.queuedAt(12)).toBe(2_100);
  });

  test("seq clock - a seq never marked (queued before the start, or by an import) has no time", () => {
    const c = new SeqClock();
    c.mark(100, 1_000);
    c.mark(200, 5_000);
    expect(c.queuedAt(5)).toBeUndefined();
    expect(c.queuedAt(150)).toBeUndefined();
    expect(c.queuedAt(201)).toBeUndefined();
  });

  test("seq clock - memory stays bounded and old seqs keep an older time than new ones", () => {
    const c = new SeqClock(64);
    for (let s = 0; s < 10_000; s++) c.mark(s, s * 1_000);
    expect(c.size).toBeLessThanOrEqual(64);
    expect(c.queuedAt(9_999)).toBe(9_999_000);
    const old = c.queuedAt(10)!;
    expect(old).toBeLessThanOrEqual(10_000);
  });
});
