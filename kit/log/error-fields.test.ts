import { expect, test } from "bun:test";
import { chooseLogFormat, errorFields, errorInfo, errorText, formatLog, LOG_FORMAT_FIELD } from "./index.ts";

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 6);

test("error fields - an Error becomes name, message, code, stack and its cause, under `error` beside the other fields", () => {
  const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:4222"), { code: "ECONNREFUSED" });
  const fields = errorFields(new TypeError("cannot publish", { cause }), { partition: 3 });
  expect(fields).toMatchObject({
    partition: 3,
    error: {
      name: "TypeError",
      message: "cannot publish",
      cause: { name: "Error", message: "connect ECONNREFUSED 127.0.0.1:4222", code: "ECONNREFUSED" },
    },
  });
  expect((fields["error"] as { stack: string }).stack).toContain("TypeError: cannot publish");
});

test("error fields - an error with an empty message says what its inner errors, its cause or its class say, never nothing", () => {
  const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: "ECONNREFUSED" });
  expect(errorInfo(new AggregateError([refused("127.0.0.1:1"), refused("::1:1")], "")).message).toBe(
    "connect ECONNREFUSED 127.0.0.1:1; connect ECONNREFUSED ::1:1",
  );
  expect(errorInfo(new RangeError("", { cause: new Error("disk full") }))).toMatchObject({
    name: "RangeError",
    message: "RangeError caused by Error: disk full",
    cause: { message: "disk full" },
  });
  class StoreClosed extends Error {}
  expect(errorInfo(new StoreClosed())).toMatchObject({ name: "StoreClosed", message: "StoreClosed with no message" });
  expect(errorInfo(new Error("   "))).toMatchObject({ name: "Error", message: "Error with no message" });
});

test("error fields - anything thrown that is not an Error is still named and described", () => {
  expect(errorInfo("boom")).toEqual({ name: "string", message: "boom" });
  expect(errorInfo("")).toEqual({ name: "string", message: "an empty string was thrown" });
  expect(errorInfo(undefined)).toEqual({ name: "undefined", message: "undefined was thrown" });
  expect(errorInfo(null)).toEqual({ name: "null", message: "null was thrown" });
  expect(errorInfo(42)).toEqual({ name: "number", message: "42" });
  expect(errorInfo({ status: 503 })).toEqual({ name: "Object", message: '{"status":503}' });
  expect(errorInfo({ name: "NatsError", message: "TIMEOUT" })).toEqual({ name: "NatsError", message: "TIMEOUT" });
  const circular: Record<string, unknown> = {};
  circular["self"] = circular;
  expect(errorInfo(circular)).toEqual({ name: "Object", message: "Object was thrown" });
});

test("error fields - in a JSON line the error is whole; in a text line it is `Name: message (cause: ...)`", () => {
  const lines: string[] = [];
  const error = new Error("handoff failed", { cause: new Error("stream reset") });
  formatLog(
    "json",
    "frontier-node",
    (l) => lines.push(l),
    () => AT,
  ).warn("handoff", errorFields(error, { partition: 7 }));
  formatLog(
    "text",
    "frontier-node",
    (l) => lines.push(l),
    () => AT,
  ).warn("handoff", errorFields(error, { partition: 7 }));
  const json = JSON.parse(lines[0]!);
  expect(json).toMatchObject({ level: "warn", msg: "handoff", partition: 7, error: { name: "Error", message: "handoff failed" } });
  expect(json.error.cause.message).toBe("stream reset");
  expect(typeof json.error.stack).toBe("string");
  expect(lines[1]).toBe(
    '2026-01-02T03:04:05.006Z warn frontier-node: handoff partition=7 error="Error: handoff failed (cause: Error: stream reset)"\n',
  );
  expect(errorText(new Error("a", { cause: new Error("a") }))).toBe("Error: a");
});

test("log format - JSON unless stderr is a terminal, and the flag or env var decides when given", () => {
  expect(chooseLogFormat(undefined, false)).toBe("json");
  expect(chooseLogFormat(undefined, true)).toBe("text");
  expect(chooseLogFormat("json", true)).toBe("json");
  expect(chooseLogFormat("text", false)).toBe("text");
  expect(LOG_FORMAT_FIELD.flag).toBe("--log-format");
  expect(LOG_FORMAT_FIELD.env).toBe("CRAWL_LOG_FORMAT");
  expect(LOG_FORMAT_FIELD.parse(" TEXT ")).toBe("text");
  expect(() => LOG_FORMAT_FIELD.parse("yaml")).toThrow(/expected json or text/);
});
