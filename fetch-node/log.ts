/**
 * The fetch node's logger: one line per event, `<ISO time> <level> <component>: <message> key=value...`,
 * written through a sink the composition root provides (stderr), so components never touch the console.
 * Each component logs through a child named after it (`fetch-node.heartbeat`).
 */

export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger for a part of this component, named `<name>.<part>`. */
  child(part: string): Log;
}

export function createLog(name: string, write: (line: string) => void, now: () => number = Date.now): Log {
  const emit = (level: string, message: string, fields?: LogFields) => {
    const extra = Object.entries(fields ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ` ${k}=${typeof v === "string" && /[\s"=]/.test(v) ? JSON.stringify(v) : v}`)
      .join("");
    write(`${new Date(now()).toISOString()} ${level} ${name}: ${message}${extra}\n`);
  };
  return {
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (part) => createLog(`${name}.${part}`, write, now),
  };
}

/** A logger that drops everything (tests). */
export const silentLog: Log = { info() {}, warn() {}, error() {}, child: () => silentLog };
