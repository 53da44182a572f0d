/**
 * The stall watch finds a proxy out of reach while requests hang in a partition (nothing comes back, no new
 * connection is taken), and leaves a slow host behind a proxy that still listens to its own deadline.
 */
import { afterEach, expect, test } from "bun:test";
import { ProxyStallWatch } from "./proxy-stall-watch.ts";

const STALL_MS = 60;
const watches: ProxyStallWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.close();
});

function watch(listens: boolean) {
  const seen = { probes: 0, lost: [] as number[] };
  const w = new ProxyStallWatch({
    stallMs: STALL_MS,
    probe: async () => {
      seen.probes++;
      return listens;
    },
    onLost: (stalledMs) => seen.lost.push(stalledMs),
    now: () => performance.now(),
  });
  watches.push(w);
  return { w, seen };
}

test("requests under way with nothing back and a proxy that takes no connection: found out of reach once the stall passes", async () => {
  const { w, seen } = watch(false);
  w.started({});
  w.started({});
  await Bun.sleep(STALL_MS / 2);
  expect(seen.lost).toEqual([]);
  await Bun.sleep(STALL_MS * 2);
  expect(seen.lost.length).toBeGreaterThanOrEqual(1);
  expect(seen.lost[0]!).toBeGreaterThanOrEqual(STALL_MS);
});

test("a proxy that takes the probe's connection is not out of reach: the hanging request is its host's", async () => {
  const { w, seen } = watch(true);
  w.started({});
  await Bun.sleep(STALL_MS * 3);
  expect(seen.probes).toBeGreaterThanOrEqual(1);
  expect(seen.lost).toEqual([]);
});

test("while answers come back through the proxy, a request that hangs is no stall and costs no probe", async () => {
  const { w, seen } = watch(false);
  w.started({});
  for (let i = 0; i < 10; i++) {
    await Bun.sleep(STALL_MS / 4);
    const other = {};
    w.started(other);
    w.answered();
    w.ended(other, true);
  }
  expect(seen.probes).toBe(0);
  expect(seen.lost).toEqual([]);
});

test("with no request under way there is nothing to watch", async () => {
  const { w, seen } = watch(false);
  const r = {};
  w.started(r);
  w.ended(r, true);
  await Bun.sleep(STALL_MS * 3);
  expect(seen.probes).toBe(0);
  // A request that starts after a long quiet time is not stalled by the quiet before it.
  w.started({});
  await Bun.sleep(STALL_MS / 2);
  expect(seen.probes).toBe(0);
});
