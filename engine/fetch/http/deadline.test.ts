import { expect, test } from "bun:test";
import { Deadline, PAUSE_MS } from "./deadline.ts";

test("deadline - fires after its time and says it timed out", async () => {
  const madeAt = performance.now();
  const deadline = new Deadline(20);
  await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
  // Not before its time (1 ms for a timer's rounding to whole milliseconds).
  expect(performance.now() - madeAt).toBeGreaterThanOrEqual(19);
  expect(deadline.timedOut).toBe(true);
  expect(deadline.callerAborted).toBe(false);
  deadline.dispose();
});

test("deadline - follows the caller's abort and says so", () => {
  const caller = new AbortController();
  const deadline = new Deadline(10_000, caller.signal);
  caller.abort(new Error("stop"));
  expect(deadline.signal.aborted).toBe(true);
  expect(deadline.callerAborted).toBe(true);
  expect(deadline.timedOut).toBe(false);
  deadline.dispose();
});

test("deadline - starts aborted when the caller already aborted", () => {
  const deadline = new Deadline(10_000, AbortSignal.abort());
  expect(deadline.signal.aborted).toBe(true);
  expect(deadline.callerAborted).toBe(true);
  deadline.dispose();
});

test("deadline - never fires once disposed", async () => {
  const deadline = new Deadline(10);
  deadline.dispose();
  // The fence: a deadline of the same time made after it. Timers fire in the order they are due, so once
  // this one has fired, the disposed one would have, however late the timers run.
  const fence = new Deadline(10);
  await new Promise((resolve) => fence.signal.addEventListener("abort", resolve));
  expect(fence.timedOut).toBe(true);
  expect(deadline.signal.aborted).toBe(false);
  expect(deadline.timedOut).toBe(false);
  fence.dispose();
});

/** Keeps this thread busy for `ms`: its timers cannot run, as in a process that is stopped. */
function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

test("deadline - a timer that finds the process was not running gives the host that time back, then fires", async () => {
  const deadline = new Deadline(100);
  blockFor(100 + PAUSE_MS + 300);
  // Overdue by more than PAUSE_MS: the process did not run, so the deadline moves on instead of firing.
  await Bun.sleep(10);
  expect(deadline.signal.aborted).toBe(false);
  expect(deadline.pausedMs).toBeGreaterThan(PAUSE_MS);
  // Nothing came meanwhile: it fires once the time given back (at most the timeout) has passed.
  await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
  expect(deadline.timedOut).toBe(true);
  deadline.dispose();
});

test("deadline - a fetch answered while the process was not running is read, not timed out", async () => {
  const deadline = new Deadline(100);
  const answered = Bun.sleep(150).then(() => "answered");
  blockFor(100 + PAUSE_MS + 300);
  // The answer (here a timer due long ago, as data waiting in a socket) comes before the deadline's new time.
  const first = await Promise.race([
    answered,
    new Promise((resolve) => deadline.signal.addEventListener("abort", () => resolve("timeout"))),
  ]);
  expect(first).toBe("answered");
  expect(deadline.timedOut).toBe(false);
  deadline.dispose();
});

test("deadline - an interrupt ends it at once as neither timed out nor aborted by the caller, and the timer never fires", async () => {
  const caller = new AbortController();
  const d = new Deadline(30, caller.signal);
  const reason = new Error("the egress proxy was found out of reach");
  d.interrupt(reason);
  expect(d.signal.aborted).toBe(true);
  expect(d.signal.reason).toBe(reason);
  expect([d.interrupted, d.timedOut, d.callerAborted]).toEqual([true, false, false]);
  await Bun.sleep(60);
  expect(d.timedOut).toBe(false);
  // Once ended, a later interrupt changes nothing.
  const timed = new Deadline(10);
  await Bun.sleep(30);
  timed.interrupt(reason);
  expect([timed.timedOut, timed.interrupted]).toEqual([true, false]);
  d.dispose();
  timed.dispose();
});
