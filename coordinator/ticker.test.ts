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

/**
 * Lets this turn's callbacks run out. A step's end is seen (`next`) before the ticker has noted that its
 * run is over; after this, it has, and a ticker whose step ended is idle.
 */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The fence for a "did not run" check: resolves once a fresh ticker with `debounceMs`, poked after this
 * turn's callbacks have settled, has run its poked step. A run any other ticker had been asked for by
 * then, with a debounce no longer, is due no later, and timers fire in the order they are due: so it has
 * started (its step counted), however late the timers run.
 */
async function fence(debounceMs: number): Promise<void> {
  await settle();
  const c = counter();
  const ticker = every(NEVER, c.step, () => {}, { debounceMs });
  try {
    await c.next(1);
    ticker.poke();
    await c.next(2);
  } finally {
    await ticker.stop();
  }
}

describe("ticker", () => {
  test("ticker - runs the step at once, then a poke runs it out of turn, once for a burst of pokes", async () => {
    const c = counter();
    const ticker = every(NEVER, c.step, () => {}, { debounceMs: 5 });
    try {
      await c.next(1);
      // Poked while idle, not during the first run (that is the next test's case).
      await settle();
      for (let i = 0; i < 10; i++) ticker.poke();
      await c.next(2);
      // A burst's pokes shared one run: once a later poke of another ticker has run, no second had.
      await fence(5);
      expect(c.runs).toBe(2);
      // ... and the next poke's run is the third.
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
      // The two pokes during the second run asked for one run after it, not one each.
      await fence(1);
      expect(c.runs).toBe(3);
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
    // Idle, so the poke schedules a run rather than asking the first run for one more.
    await settle();
    ticker.poke();
    await ticker.stop();
    // Once a ticker poked after it has run, the poked run would have started: none did.
    await fence(1);
    expect(c.runs).toBe(1);
  });

  test("ticker - a poke after stop asks for no run", async () => {
    const c = counter();
    const ticker = every(NEVER, c.step, () => {}, { debounceMs: 1 });
    await c.next(1);
    // Idle, its regular turn an hour away: a poke now would ask for a run.
    await settle();
    await ticker.stop();
    ticker.poke();
    await fence(1);
    expect(c.runs).toBe(1);
  });
});
