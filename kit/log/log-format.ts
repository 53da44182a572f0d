/**
 * One log format rule for every process: JSON lines, unless stderr is a terminal, where a person reads
 * text. `--log-format json|text` (or CRAWL_LOG_FORMAT) says otherwise; the row below goes into every
 * process's configuration table, so the flag, the env var and the help line are the same everywhere.
 */
import { oneOfKind, type FieldSpec } from "../../core/config/index.ts";
import type { LogFormat } from "./log.ts";

/** The `logFormat` row of a process's table: undefined means "by the terminal". */
export const LOG_FORMAT_FIELD: FieldSpec<LogFormat | undefined> = {
  default: undefined,
  defaultText: "json, or text when stderr is a terminal",
  env: "CRAWL_LOG_FORMAT",
  flag: "--log-format",
  description: "How log lines are written: json (one object per line) or text (for reading)",
  ...oneOfKind<LogFormat>(["json", "text"]),
};

/** The format a process logs in: the one configured, else text on a terminal and JSON elsewhere. */
export function chooseLogFormat(configured: LogFormat | undefined, stderrIsTerminal: boolean): LogFormat {
  return configured ?? (stderrIsTerminal ? "text" : "json");
}
