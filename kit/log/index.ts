/**
 * Logging for every role: `jsonLog` (JSON lines) and `textLog` (`<time> <level> <component>: ...`)
 * behind one `Log` interface, and `silentLog` for tests.
 */
export { jsonLog, textLog, type LogSink } from "./log.ts";
export { silentLog, type Log, type LogFields } from "../../core/ports/index.ts";
