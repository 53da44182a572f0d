/**
 * Where a URL's captures are stored: the capture a result stored, the bounded list kept in the URL's row
 * of the frontier store (stored-captures.ts), and the one way every API checks a lookup (lookup.ts) and
 * answers it (capture.ts). Pure: no store, no transport.
 */
export { captureJson, type Capture, type CaptureJson } from "./capture.ts";
export { captureLimitOf, captureLookup, checkedCaptureLimit, MAX_CAPTURES_LIMIT } from "./lookup.ts";
export { captureOf, decodeCaptures, DEFAULT_JOB, MAX_CAPTURES_PER_URL, withCapture } from "./stored-captures.ts";
