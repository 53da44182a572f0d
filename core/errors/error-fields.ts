/**
 * The one way a process logs an error: `log.warn("what failed", errorFields(error, { partition }))` puts
 * the thrown value under `error` as `{ name, message, code?, stack?, cause? }`, whatever was thrown (an
 * Error, a string, an object, undefined). The message is never empty: an error without one (undici's
 * AggregateError of two refused connections, a bare `new Error()`) takes its inner errors' or its cause's
 * message, or says which class it was, so a log line always tells what happened.
 */
import type { LogFields } from "../ports/index.ts";

/** A thrown value as plain data, for a log line or a message. */
export interface ErrorInfo {
  /** The error's name, or its class when the name is the generic `Error`; `string`, `object`... for non-errors. */
  readonly name: string;
  /** Never empty. */
  readonly message: string;
  /** A system error code (`ECONNREFUSED`, `ENOENT`), when the error has one. */
  readonly code?: string;
  readonly stack?: string;
  readonly cause?: ErrorInfo;
}

const MAX_CAUSE_DEPTH = 4;

/** `fields` with the thrown value under `error`: the argument every log call about a failure passes. */
export function errorFields(error: unknown, fields: LogFields = {}): LogFields {
  return { ...fields, error: errorInfo(error) };
}

/** A thrown value as `{ name, message, code?, stack?, cause? }`. */
export function errorInfo(value: unknown, depth = 0): ErrorInfo {
  if (value instanceof Error) {
    const name = value.name && value.name !== "Error" ? value.name : value.constructor?.name || "Error";
    const cause = value.cause !== undefined && depth < MAX_CAUSE_DEPTH ? errorInfo(value.cause, depth + 1) : undefined;
    const code = (value as { code?: unknown }).code;
    return {
      name,
      message: value.message.trim() || innerMessage(value, cause) || `${name} with no message`,
      ...(typeof code === "string" || typeof code === "number" ? { code: String(code) } : {}),
      ...(typeof value.stack === "string" ? { stack: value.stack } : {}),
      ...(cause ? { cause } : {}),
    };
  }
  if (typeof value === "string") return { name: "string", message: value.trim() || "an empty string was thrown" };
  if (value === null || value === undefined) return { name: String(value), message: `${String(value)} was thrown` };
  if (typeof value === "object") {
    const { name, message } = value as { name?: unknown; message?: unknown };
    if (typeof message === "string" && message.trim() !== "") return { name: typeof name === "string" && name ? name : "object", message };
    return { name: value.constructor?.name || "object", message: safeJson(value) };
  }
  return { name: typeof value, message: String(value) };
}

/** One line for people: `TypeError: boom`, with the cause after it when there is one. */
export function errorText(value: unknown): string {
  const info = value !== null && typeof value === "object" && isErrorInfo(value) ? value : errorInfo(value);
  const own = `${info.name}: ${info.message}`;
  return info.cause && !info.message.includes(info.cause.message) ? `${own} (cause: ${errorText(info.cause)})` : own;
}

/** Whether `value` already is an ErrorInfo (what errorFields put in a log line). */
export function isErrorInfo(value: object): value is ErrorInfo {
  const { name, message } = value as { name?: unknown; message?: unknown };
  return (
    !(value instanceof Error) &&
    typeof name === "string" &&
    typeof message === "string" &&
    Object.keys(value).every((k) => INFO_KEYS.has(k))
  );
}

const INFO_KEYS = new Set(["name", "message", "code", "stack", "cause"]);

/** An empty message's stand-in: what the inner errors of an AggregateError, or the cause, say. */
function innerMessage(error: Error, cause: ErrorInfo | undefined): string | undefined {
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.map((e) => errorInfo(e, MAX_CAUSE_DEPTH).message).join("; ");
  return cause ? `${error.constructor?.name || "Error"} caused by ${cause.name}: ${cause.message}` : undefined;
}

function safeJson(value: object): string {
  try {
    const text = JSON.stringify(value);
    if (text && text !== "{}") return text;
  } catch {
    // circular or holding a bigint: fall through
  }
  return `${value.constructor?.name || "object"} was thrown`;
}
