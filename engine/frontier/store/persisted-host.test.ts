import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "bun:test";
import { InvalidArgumentError } from "../../../core/errors/index.ts";
import { newHostState, onFetchEnd, onFetchStart } from "../../../core/politeness/index.ts";
import { DEFAULT_POLICY } from "../../../core/config/index.ts";
import { importChunk } from "../handoff.ts";
import { FrontierStore } from "./frontier-store.ts";
import { parsePersistedHost, type PersistedHost } from "./persisted-host.ts";

const T0 = 1_750_000_000_000;

function fetchedHost(): PersistedHost {
  const started = onFetchStart(newHostState(), T0);
  const state = onFetchEnd(started, { startedAt: T0, endedAt: T0 + 40, error: "connect-timeout" }, DEFAULT_POLICY);
  return { state, pagesToday: { day: "2025-06-15", count: 3 }, minGapOverrideMs: 2_000 };
}

test("persisted host - a saved host reads back as it was saved", () => {
  const store = FrontierStore.open(":memory:");
  const host = fetchedHost();
  store.saveHost("a.test", 1, host);
  expect(store.loadHost("a.test")).toEqual(host);
  expect(store.loadHost("never.test")).toBeUndefined();
  store.close();
});

test("persisted host - a row written before gap overrides existed (no minGapOverrideMs) still reads", () => {
  const { state } = fetchedHost();
  expect(parsePersistedHost(JSON.stringify({ state, pagesToday: null }))).toEqual({ state, pagesToday: null });
});

test("persisted host - text that is not a host's state is refused, naming the field at fault", () => {
  const { state } = fetchedHost();
  const bad = (value: unknown) => () => parsePersistedHost(typeof value === "string" ? value : JSON.stringify(value));
  expect(bad("{not json")).toThrow(/not JSON/);
  expect(bad([1, 2])).toThrow(/not an object/);
  expect(bad({ pagesToday: null })).toThrow(/no `state` object/);
  expect(bad({ state: { ...state, nextAllowedAt: "soon" }, pagesToday: null })).toThrow(/state\.nextAllowedAt must be a number/);
  expect(bad({ state: { ...state, paused: 1 }, pagesToday: null })).toThrow(/state\.paused must be true or false/);
  expect(bad({ state: { ...state, inFlightSince: "x" }, pagesToday: null })).toThrow(/state\.inFlightSince must be a number or null/);
  expect(bad({ state: { ...state, lastError: "gremlins" }, pagesToday: null })).toThrow(/state\.lastError must be a fetch error kind/);
  expect(bad({ state, pagesToday: { day: 5 } })).toThrow(/pagesToday/);
  expect(bad({ state, pagesToday: null, minGapOverrideMs: "1s" })).toThrow(/minGapOverrideMs/);
});

test("persisted host - a damaged row in the store is an error naming the host, never a fresh state", () => {
  const dir = mkdtempSync(join(tmpdir(), "persisted-host-"));
  const path = join(dir, "frontier.sqlite");
  try {
    const store = FrontierStore.open(path);
    store.saveHost("a.test", 1, fetchedHost());
    store.close();
    const db = new Database(path);
    db.query("UPDATE hosts SET state = ? WHERE host = ?").run('{"state":{}}', "a.test");
    db.close();
    const reopened = FrontierStore.open(path);
    expect(() => reopened.loadHost("a.test")).toThrow(/saved state of host a\.test is unreadable: host state: state\.nextAllowedAt/);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("persisted host - a handoff chunk with a malformed host state is refused whole, and nothing of it is written", () => {
  const store = FrontierStore.open(":memory:");
  const good = { host: "a.test", stateJson: JSON.stringify(fetchedHost()), robotsJson: "", sitemapsJson: "" };
  const bad = { host: "b.test", stateJson: JSON.stringify({ state: { gapMs: 1 } }), robotsJson: "", sitemapsJson: "" };
  const queued = [
    { host: "a.test", partition: 1, priority: 2 as const, seq: 1, url: "http://a.test/", depth: 0, hops: 0, kind: "page" as const },
  ];
  expect(() => importChunk(store, { partition: 1, queued, hosts: [good, bad], urls: [] })).toThrow(InvalidArgumentError);
  expect(() => importChunk(store, { partition: 1, queued, hosts: [good, bad], urls: [] })).toThrow(/handoff: host b\.test: host state/);
  expect(store.loadHost("a.test")).toBeUndefined();
  expect(store.totalQueued()).toBe(0);
  store.close();
});
