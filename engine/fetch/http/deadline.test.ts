import { expect, test } from "bun:test";
import { Deadline } from "./deadline.ts";

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
