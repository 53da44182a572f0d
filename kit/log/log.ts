/**
 * The logger every process uses: one line per event, written through a sink the composition root provides
 * (stderr by default), carrying the component that wrote it so a local cluster's interleaved output stays
 * greppable. `child` names a sub-component (`coordinator.rebalancer`, `fetch-node.heartbeat`). A line is
 * either a JSON object (`jsonLog`, the default of every process) or `<ISO time> <level> <component>:
 * <message> key=value...` (`textLog`, for a person at a terminal); log-format.ts chooses between them the
 * same way for every process. An error under `error` (see error-fields.ts) is written whole in JSON and as
 * `Name: message` in text. Tests pass `silentLog`, or a recording Log. No runtime global but `process`,
 * so the fetch node uses it on Deno too.
 */

import type { Log, LogFields } from "../../core/ports/index.ts";
import { errorInfo, errorText, isErrorInfo } from "../../core/errors/index.ts";

/** Receives one finished line, newline included. */
export type LogSink = (line: string) => void;

/** How a line is written: `json` for machines (the default), `text` for people. */
export type LogFormat = "json" | "text";

/** A Log writing lines in `format`. */
export function formatLog(format: LogFormat, component: string, write: LogSink = toStderr, now: () => number = Date.now): Log {
  return lineLog(component, write, now, format === "json" ? jsonLine : textLine);
}

/** Each event as one JSON object: `{"at","level","component","msg",...fields}`. */
export function jsonLog(component: string, write: LogSink = toStderr, now: () => number = Date.now): Log {
  return formatLog("json", component, write, now);
}

/** Each event as `<ISO time> <level> <component>: <message> key=value...`. */
export function textLog(component: string, write: LogSink = toStderr, now: () => number = Date.now): Log {
  return formatLog("text", component, write, now);
}

type Format = (at: string, level: string, component: string, message: string, fields: LogFields | undefined) => string;

function lineLog(component: string, write: LogSink, now: () => number, format: Format): Log {
  const emit = (level: string, message: string, fields?: LogFields) =>
    write(`${format(new Date(now()).toISOString(), level, component, message, fields)}\n`);
  return {
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (part) => lineLog(`${component}.${part}`, write, now, format),
  };
}

function toStderr(line: string): void {
  process.stderr.write(line);
}

const jsonLine: Format = (at, level, component, msg, fields) => JSON.stringify({ at, level, component, msg, ...fields }, replacer);

/** Undefined fields are left out; a string with white space, `"` or `=` is quoted; an error is `Name: message`. */
const textLine: Format = (at, level, component, message, fields) => {
  const extra = Object.entries(fields ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${textValue(v)}`)
    .join("");
  return `${at} ${level} ${component}: ${message}${extra}`;
};

function textValue(value: unknown): string {
  if (typeof value === "string") return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  if (value === null || typeof value !== "object") return String(value);
  if (value instanceof Error || isErrorInfo(value)) return JSON.stringify(errorText(value));
  return JSON.stringify(value, replacer);
}

/** Errors as ErrorInfo (JSON.stringify would print `{}`), bigints as strings. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return errorInfo(value);
  if (typeof value === "bigint") return value.toString();
  return value;
}
