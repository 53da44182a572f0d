/**
 * The disk watch, on its own: a full disk stops the tasks until a probe write succeeds, probed every two
 * seconds, and the process is told both ways. (frontier-disk-full.test.ts runs the whole frontier on a
 * disk that really fills.)
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { DiskWatch } from "./disk-full.ts";
import { FrontierState, type FrontierOptions } from "./frontier-state.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = 1_000_000;
const noSpace = () => Object.assign(new Error("write failed: no space left on device"), { code: "ENOSPC" });

function setup(extra: Partial<FrontierOptions> = {}) {
  const clock = { now: T0 };
  const told: Array<[boolean, unknown]> = [];
  const state = new FrontierState({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: DEFAULT_POLICY,
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => "t",
    onDisk: (full, error) => void told.push([full, error]),
    ...extra,
  });
  return { state, disk: new DiskWatch(state), clock, told };
}

describe("disk full", () => {
  test("disk full - a full disk is noted once, counted and told; another write failure is not taken for one", () => {
    const { state, disk, told } = setup();
    disk.writeFailed(new Error("constraint failed"));
    expect(disk.full).toBe(false);
    const error = noSpace();
    disk.writeFailed(error);
    disk.noteFull(noSpace());
    expect(disk.full).toBe(true);
    expect(state.counters.toJSON()).toEqual({ "frontier.disk-full": 1 });
    expect(told).toEqual([[true, error]]);
  });

  test("disk full - room is probed at most every two seconds; the first probe that works resumes the tasks and says so", () => {
    let room = false;
    let probes = 0;
    const { disk, clock, told } = setup({
      diskProbe: () => {
        probes++;
        if (!room) throw noSpace();
      },
    });
    disk.noteFull(noSpace());
    clock.now += 1_999;
    expect(disk.stillFull(clock.now)).toBe(true);
    expect(probes).toBe(0);
    clock.now += 1;
    expect(disk.stillFull(clock.now)).toBe(true);
    expect(probes).toBe(1);
    room = true;
    clock.now += 1_000;
    expect(disk.stillFull(clock.now)).toBe(true);
    clock.now += 1_000;
    expect(disk.stillFull(clock.now)).toBe(false);
    expect(probes).toBe(2);
    expect(told.map(([full]) => full)).toEqual([true, false]);
    expect(disk.full).toBe(false);
  });

  test("disk full - without a probe of its own, a small write to the store is the probe", () => {
    const { state, disk, clock } = setup();
    expect(disk.stillFull(clock.now)).toBe(false);
    disk.noteFull(noSpace());
    clock.now += 2_000;
    expect(disk.stillFull(clock.now)).toBe(false);
    expect(state.store.getMeta("disk-probe")).toBe(String(clock.now));
  });
});
