/**
 * The progress reporter of an idle crawl: it says once, in words, what it waits for instead of a counter line
 * every interval, and it reads what is left (a whole-schedule read) again only when a page was fetched, the
 * first thing it waited for fell due, or the reading is old, not on every tick.
 */
import { expect, test } from "bun:test";
import type { Log, LogFields } from "../core/ports/index.ts";
import type { FrontierSnapshot, PendingWork } from "../engine/frontier/index.ts";
import { Progress } from "./progress.ts";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;

const SNAPSHOT: FrontierSnapshot = {
  queued: 0,
  scheduled: 1,
  activeHosts: 0,
  hostsReady: 0,
  hostsWaiting: 0,
  hostsCold: 0,
  inFlight: 0,
  knownUrls: 1,
  sitemapsPending: 0,
  counters: { "fetch.network-error.dns": 1 },
};

function retryAt(at: number): PendingWork {
  return {
    refetches: { count: 0 },
    retries: { count: 1, firstDueAt: at },
    resting: { count: 0 },
    queued: { urls: 0, hosts: 0 },
    sitemaps: { count: 0, hosts: 0 },
    feeds: { count: 0 },
    unreachable: [{ host: "gone.test", robotsTxt: false, reason: "dns", waiting: 1, nextTryAt: at }],
    unreachableTotal: 1,
  };
}

function setup() {
  const clock = { now: T0 };
  const state = { pages: 0, work: retryAt(T0 + 10 * MIN), ticks: 0, reads: 0 };
  const lines: { message: string; fields?: LogFields }[] = [];
  const log: Log = {
    info: (message, fields) => lines.push({ message, fields }),
    warn: (message, fields) => lines.push({ message, fields }),
    error: (message, fields) => lines.push({ message, fields }),
    child: () => log,
  };
  const progress = new Progress(
    {
      pages: () => state.pages,
      frontier: () => SNAPSHOT,
      inFlight: () => {
        state.ticks++;
        return 0;
      },
      pending: () => {
        state.reads++;
        return state.work;
      },
    },
    undefined,
    log,
    () => clock.now,
    1,
  );
  /** Resolves once the reporter has ticked `n` more times. */
  const ticks = async (n: number) => {
    const until = state.ticks + n;
    while (state.ticks < until) await Bun.sleep(1);
  };
  return { clock, state, lines, progress, ticks };
}

test("progress - an idle crawl says once what it waits for, and reads what is left once, not every tick", async () => {
  const { state, lines, progress, ticks } = setup();
  progress.start();
  try {
    await ticks(20);
    expect(lines.map((l) => l.message)).toEqual([
      "waiting: nothing to fetch until 2026-01-05 09:10:00 UTC (in 10 min); unreachable: gone.test (its name does not resolve (DNS), tried again 2026-01-05 09:10:00 UTC (in 10 min)); 1 retry scheduled",
    ]);
    expect(lines[0]!.fields).toMatchObject({ waiting: true, retries: 1, unreachableHosts: [{ host: "gone.test", reason: "dns" }] });
    expect(state.reads).toBe(1);
  } finally {
    progress.stop();
  }
});

test("progress - what is left is read again when the retry it waited for falls due, even if it fetched no page", async () => {
  const { clock, state, lines, progress, ticks } = setup();
  state.work = retryAt(T0 + 20_000);
  progress.start();
  try {
    await ticks(3);
    expect(state.reads).toBe(1);
    // 20 s later (well within the half minute a reading is kept) the retry fell due and failed again, no page
    // fetched: the next try is an hour away.
    state.work = retryAt(T0 + 20_000 + 60 * MIN);
    clock.now = T0 + 20_000;
    await ticks(3);
    expect(state.reads).toBe(2);
    expect(lines.at(-1)!.message).toStartWith("waiting: nothing to fetch until 2026-01-05 10:00:20 UTC (in 1 h)");
  } finally {
    progress.stop();
  }
});

test("progress - what is left is read again after a page was fetched, and after half a minute", async () => {
  const { clock, state, progress, ticks } = setup();
  progress.start();
  try {
    await ticks(3);
    expect(state.reads).toBe(1);
    state.pages = 1; // one tick shows the counters (a page was fetched), the next is idle again
    await ticks(3);
    expect(state.reads).toBe(2);
    clock.now += 30_000;
    await ticks(3);
    expect(state.reads).toBe(3);
  } finally {
    progress.stop();
  }
});
