/**
 * Logging for every process: `formatLog` (JSON lines or text behind one `Log` interface; `jsonLog` and
 * `textLog` name the two), the one format rule (`chooseLogFormat`, and `LOG_FORMAT_FIELD` for the tables),
 * the one way to log an error (`errorFields`), and `silentLog` for tests.
 */
export { formatLog, jsonLog, textLog, type LogFormat, type LogSink } from "./log.ts";
export { chooseLogFormat, LOG_FORMAT_FIELD } from "./log-format.ts";
export { errorFields, errorInfo, errorText, type ErrorInfo } from "../../core/errors/index.ts";
export { silentLog, type Log, type LogFields } from "../../core/ports/index.ts";
