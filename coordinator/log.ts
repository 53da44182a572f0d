/**
 * The coordinator's logger: one JSON object per line on stderr, with the component that wrote it, so a
 * local cluster's interleaved output stays greppable. `child` names a sub-component
 * (`coordinator.rebalancer`). Tests pass `silentLog`, or a recording Log.
 */
export type LogFields = Record<string, unknown>;

export interface Log {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(component: string): Log;
}

export function jsonLog(component: string, write: (line: string) => void = (line) => process.stderr.write(line)): Log {
  const emit = (level: string, msg: string, fields?: LogFields) =>
    write(`${JSON.stringify({ at: new Date().toISOString(), level, component, msg, ...fields }, replacer)}\n`);
  return {
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (name) => jsonLog(`${component}.${name}`, write),
  };
}

export const silentLog: Log = {
  info() {},
  warn() {},
  error() {},
  child: () => silentLog,
};

/** Errors as `{name, message, stack}`, which JSON.stringify would otherwise print as `{}`. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === "bigint") return value.toString();
  return value;
}
