import { describe, expect, test } from "bun:test";
import { every } from "./ticker.ts";

/** A regular turn no test waits for: a run these tests see is a first run or a poked one. */
const NEVER = 3_600_000;

/** Counts runs; `next(n)` resolves when run n has ended. */
function counter() {
  let runs = 0;
  const waiters = new Map<number, () => void>();
  return {
    get runs() {
      return runs;
    },
    step: async () => {
      runs++;
      waiters.get(runs)?.();
    },
    next: (n: number) =>
      new Promise<void>((resolve) => {
        if (runs >= n) resolve();
        else waiters.set(n, resolve);
      }),
  };
}

describe("ticker", () => {
  test("ticker - runs the step at once, then a poke runs it out of turn, once for a burst of pokes", async () => {
    const c = counter();
    const ticker = every(NEVER, c.step, () => {}, { debounceMs: 5 });
    try {
      await c.next(1);
      for (let i = 0; i < 10; i++) ticker.poke();
      await c.next(2);
      // A burst's pokes shared one run: the next poke's run is the third.
      ticker.poke();
      await c.next(3);
      expect(c.runs).toBe(3);
    } finally {
      await ticker.stop();
    }
  });

  test("ticker - a poke during a run asks for one more run after it, never two at once", async () => {
    let release: () => void = () => {};
    let running = 0;
    let overlapped = false;
    const c = counter();
    const ticker = every(
      NEVER,
      async () => {
        running++;
        overlapped ||= running > 1;
        // The second run waits until the test has poked during it.
        if (c.runs === 1) await new Promise<void>((resolve) => (release = resolve));
        await c.step();
        running--;
      },
      () => {},
      { debounceMs: 1 },
    );
    try {
      await c.next(1);
      ticker.poke();
      // Let the second run start and block.
      while (running === 0) await new Promise((r) => setTimeout(r, 1));
      ticker.poke();
      ticker.poke();
      release();
      await c.next(3);
      ticker.poke();
      await c.next(4);
      expect(c.runs).toBe(4);
      expect(overlapped).toBe(false);
    } finally {
      await ticker.stop();
    }
  });

  test("ticker - a failing step is reported and the turns go on", async () => {
    const errors: unknown[] = [];
    let runs = 0;
    let third: () => void = () => {};
    const thirdRun = new Promise<void>((resolve) => (third = resolve));
    const ticker = every(
      1,
      async () => {
        runs++;
        if (runs === 3) third();
        if (runs === 1) throw new Error("boom");
      },
      (error) => errors.push(error),
    );
    try {
      await thirdRun;
      expect(errors).toHaveLength(1);
    } finally {
      await ticker.stop();
    }
  });

  test("ticker - stop cancels a poked run that has not started", async () => {
    const c = counter();
    const ticker = every(NEVER, c.step, () => {}, { debounceMs: 1 });
    await c.next(1);
    ticker.poke();
    await ticker.stop();
    // A timer due later than the poked run's fires after it would have: none ran.
    await new Promise((r) => setTimeout(r, 20));
    expect(c.runs).toBe(1);
    ticker.poke();
    await new Promise((r) => setTimeout(r, 20));
    expect(c.runs).toBe(1);
  });
});
