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

/** What `fn` writes to stderr, stdout and the console while it runs. */
function outputOf(fn: () => void): string[] {
  const written: string[] = [];
  const streams = [process.stderr, process.stdout] as const;
  const writes = streams.map((s) => s.write);
  const consoles = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  for (const s of streams) s.write = ((chunk: unknown) => (written.push(String(chunk)), true)) as typeof s.write;
  for (const k of Object.keys(consoles) as Array<keyof typeof consoles>)
    console[k] = (...args: unknown[]) => void written.push(args.join(" "));
  try {
    fn();
  } finally {
    streams.forEach((s, i) => (s.write = writes[i]!));
    Object.assign(console, consoles);
  }
  return written;
}

test("log - the silent log drops everything, children included, where the default sink would write", () => {
  const everyLevel = (log: typeof silentLog) => {
    for (const l of [log, log.child("x"), log.child("x").child("y")]) {
      l.info("info", { a: 1 });
      l.warn("warn", { error: new Error("boom") });
      l.error("error");
    }
  };
  expect(outputOf(() => everyLevel(silentLog))).toEqual([]);
  // The same calls on a logger with the default sink do reach stderr: the check above can see a write.
  expect(outputOf(() => everyLevel(textLog("control"))).length).toBe(9);
});
