/**
 * The request log. A record is opened when the request head arrives and closed when the response's last
 * byte has been handed to the socket, or when the connection closes first (timeouts, resets, a client
 * giving up on a drip), so the log shows how long each request really held its host. Times are epoch
 * milliseconds with sub-millisecond resolution, from one monotonic clock (./clock.ts; the checker only
 * subtracts them), which starts equal to `Date.now()` and parts from it when the wall clock is stepped.
 *
 * A response written at once (a page fits the socket buffer) ends when `end()` hands it over, and the
 * clock is read just before that call, not after it returns. The write wakes the client that was waiting
 * for it, and on a busy machine the scheduler then often runs the client and leaves this process off the
 * CPU, inside `end()`, for as long as the run queue takes: a reading after the call would log the end that
 * much late (and the next gap that much short). Measured under load (2 cores, load average 20–28): `end()`
 * took over 1 ms in 54 of 132 calls and up to 114 ms, while the fetching process had the whole response
 * about 2 ms after the call began. Before the call is the last moment this process knows to be before the
 * write; it precedes the write only by the part of `end()` before its system call (the whole call took
 * 0.18 ms at the median in that measurement, where this process mostly kept the CPU). Neither
 * is the `finish` event the end: it comes only when the event loop gets to it. A response still buffered
 * after `end()` (a body larger than the socket takes) ends at `finish`, which Bun emits once the last byte
 * is flushed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Target } from "./target.ts";
import { logClock } from "./clock.ts";
import type { RequestRecord } from "./types.ts";
import { retryAfterMs } from "./violations.ts";

/**
 * Opens the record of one request in `log` and closes it when the response ends. `clock` is the test
 * web's clock (`logClock`); a test may pass another to stand for time the process spends off the CPU.
 */
export function record(
  log: RequestRecord[],
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  clock: () => number = logClock,
): RequestRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  const rec: RequestRecord = {
    host: target.host,
    path: target.path,
    method: req.method ?? "GET",
    via: target.via,
    startedAt: clock(),
    endedAt: Number.POSITIVE_INFINITY,
    status: 0,
    completed: false,
    headers,
  };
  log.push(rec);
  const done = (completed: boolean, at = clock()): void => {
    if (rec.endedAt !== Number.POSITIVE_INFINITY) return;
    rec.endedAt = at;
    rec.completed = completed;
    rec.status = res.headersSent ? res.statusCode : 0;
    const retryAfter = res.getHeader("retry-after");
    if (retryAfter !== undefined) {
      rec.retryAfter = String(retryAfter);
      // A date is wall-clock time: read now, while the wall clock is the server's clock of the answer.
      const wait = retryAfterMs(rec.retryAfter, Date.now());
      if (wait !== undefined) rec.retryAfterWaitMs = wait;
    }
  };
  const end = res.end;
  /** The clock just before the running `end()` call, while it runs. */
  let handingOver: number | undefined;
  res.end = function (this: ServerResponse, ...args: Parameters<ServerResponse["end"]>) {
    handingOver = clock();
    try {
      const out = end.apply(this, args);
      if (res.writableFinished) done(true, handingOver);
      return out;
    } finally {
      handingOver = undefined;
    }
  } as ServerResponse["end"];
  // A `finish` emitted inside `end()` is the same handing over; one emitted later ends the record then.
  res.once("finish", () => done(true, handingOver));
  res.once("close", () => done(false));
  return rec;
}
