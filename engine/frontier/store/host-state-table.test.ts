import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../../../core/config/index.ts";
import { newHostState, onFetchEnd, onFetchStart } from "../../../core/politeness/index.ts";
import type { Change } from "./changes.ts";
import { HostStateTable } from "./host-state-table.ts";
import type { PersistedHost } from "./persisted-host.ts";
import { openStoreFile } from "./store-file.ts";

const T0 = 1_750_000_000_000;

function setup() {
  const db = openStoreFile(":memory:", (d) => d);
  const notes: Array<[number, Change]> = [];
  return { db, hosts: new HostStateTable(db, (p, c) => void notes.push([p, c])), notes };
}

function throttled(): PersistedHost {
  const state = onFetchEnd(onFetchStart(newHostState(), T0), { startedAt: T0, endedAt: T0 + 50, status: 429 }, DEFAULT_POLICY);
  return { state, pagesToday: { day: "2025-06-15", count: 7 }, minGapOverrideMs: 0, run: "run-1" };
}

describe("host state table", () => {
  test("host state table - a host's politeness state survives a save and a load, its throttle included", () => {
    const { hosts } = setup();
    hosts.put("a.test", 2, throttled());
    expect(hosts.get("a.test")).toEqual(throttled());
    expect(hosts.get("a.test")!.state.throttles).toBe(1);
    expect(hosts.get("b.test")).toBeUndefined();
  });

  test("host state table - a damaged saved state is refused with the host's name, never guessed", () => {
    const { db, hosts } = setup();
    db.query("INSERT INTO hosts (host, partition, state) VALUES ('bad.test', 0, '{\"state\": 1}')").run();
    expect(() => hosts.get("bad.test")).toThrow(/saved state of host bad\.test is unreadable/);
  });

  test("host state table - each save is journaled as the text stored; a partition's hosts are listed and deleted", () => {
    const { hosts, notes } = setup();
    hosts.put("a.test", 2, throttled());
    hosts.put("b.test", 3, throttled());
    expect(notes[0]).toEqual([2, ["h", "a.test", JSON.stringify(throttled())]]);
    expect(hosts.inPartition(2)).toEqual([{ host: "a.test", state: JSON.stringify(throttled()) }]);
    hosts.deletePartition(2);
    expect(hosts.get("a.test")).toBeUndefined();
    expect(hosts.get("b.test")).toBeDefined();
  });
});
