/**
 * The test web's log clock: epoch milliseconds, sub-millisecond, monotonic (timeOrigin + performance.now()
 * of the test process). Every time in the request log is on it, so a test that compares its own instants
 * with the log (when it killed a node, paused a host, ...) takes them from `logClock`, never `Date.now()`:
 * the wall clock can be stepped under a running suite (seen: 9-11 s on a VM), and the two then part.
 */
export function logClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A wall-clock instant (`Date.now()` here or in another process on this machine, e.g. a node's report) on
 * the log clock: its age on the wall clock, taken back from the log clock's now. Right across a step that
 * happened before `wallMs`; one in between the two readings moves it by the step.
 */
export function onLogClock(wallMs: number): number {
  return logClock() - (Date.now() - wallMs);
}
