import { expect, test } from "bun:test";
import { jsonLog, silentLog, textLog } from "./index.ts";

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 6);

test("log - a JSON line carries time, level, the child's component and the fields, errors and bigints readable", () => {
  const lines: string[] = [];
  const log = jsonLog(
    "coordinator",
    (line) => lines.push(line),
    () => AT,
  ).child("rebalancer");
  log.warn("moved", { partitions: 3, total: 5n, skipped: undefined, error: new TypeError("boom") });
  expect(lines).toHaveLength(1);
  expect(lines[0]!.endsWith("\n")).toBe(true);
  const entry = JSON.parse(lines[0]!);
  expect(entry).toMatchObject({
    at: "2026-01-02T03:04:05.006Z",
    level: "warn",
    component: "coordinator.rebalancer",
    msg: "moved",
    partitions: 3,
    total: "5",
  });
  expect(entry.error).toMatchObject({ name: "TypeError", message: "boom" });
  expect("skipped" in entry).toBe(false);
});

test("log - a text line is time, level, component and message, then key=value with spaced values quoted", () => {
  const lines: string[] = [];
  const log = textLog(
    "fetch-node[f1]",
    (line) => lines.push(line),
    () => AT,
  ).child("heartbeat");
  log.info("stopped", { tasks: 4, error: "connection refused", ok: true, gone: undefined });
  expect(lines).toEqual(['2026-01-02T03:04:05.006Z info fetch-node[f1].heartbeat: stopped tasks=4 error="connection refused" ok=true\n']);
});

test("log - the silent log drops everything, children included", () => {
  expect(() => silentLog.child("x").error("nothing", { a: 1 })).not.toThrow();
});
