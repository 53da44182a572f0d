/**
 * The Log port: one event per call, with structured fields. Every component receives a Log from its
 * composition root and names its parts with `child`; the line formats live in kit/log. `silentLog` drops
 * everything (tests, and components built without a logger).
 */

export type LogFields = Readonly<Record<string, unknown>>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger for a part of this component, named `<component>.<part>`. */
  child(part: string): Log;
}

/** A logger that drops everything. */
export const silentLog: Log = { info() {}, warn() {}, error() {}, child: () => silentLog };
