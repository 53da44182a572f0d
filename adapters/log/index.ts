/**
 * Logging for every role: `jsonLog` (JSON lines) and `textLog` (`<time> <level> <component>: ...`)
 * behind one `Log` interface, and `silentLog` for tests.
 */
export { jsonLog, silentLog, textLog, type Log, type LogFields, type LogSink } from "./log.ts";
