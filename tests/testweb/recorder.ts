/**
 * The request log. A record is opened when the request head arrives and closed when the response's last
 * byte has been handed to the socket, or when the connection closes first (timeouts, resets, a client
 * giving up on a drip), so the log shows how long each request really held its host. The end is taken at
 * the moment `end()` returns when the whole response was written there and then (a page fits the socket
 * buffer): the `finish` event comes only when the event loop gets to it, which on a busy server is
 * milliseconds after the client has the response, and would make every gap look that much shorter. A
 * response still buffered after `end()` (a body larger than the socket takes) ends at `finish`, which Bun
 * emits once the last byte is flushed. Times are epoch milliseconds with sub-millisecond resolution, from
 * one monotonic clock (the checker only subtracts them), comparable with `Date.now()`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Target } from "./target.ts";
import type { RequestRecord } from "./types.ts";

export function now(): number {
  return performance.timeOrigin + performance.now();
}

export function record(log: RequestRecord[], req: IncomingMessage, res: ServerResponse, target: Target): RequestRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  const rec: RequestRecord = {
    host: target.host,
    path: target.path,
    method: req.method ?? "GET",
    via: target.via,
    startedAt: now(),
    endedAt: Number.POSITIVE_INFINITY,
    status: 0,
    completed: false,
    headers,
  };
  log.push(rec);
  const done = (completed: boolean): void => {
    if (rec.endedAt !== Number.POSITIVE_INFINITY) return;
    rec.endedAt = now();
    rec.completed = completed;
    rec.status = res.headersSent ? res.statusCode : 0;
    const retryAfter = res.getHeader("retry-after");
    if (retryAfter !== undefined) rec.retryAfter = String(retryAfter);
  };
  const end = res.end;
  res.end = function (this: ServerResponse, ...args: Parameters<ServerResponse["end"]>) {
    const out = end.apply(this, args);
    if (res.writableFinished) done(true);
    return out;
  } as ServerResponse["end"];
  res.once("finish", () => done(true));
  res.once("close", () => done(false));
  return rec;
}
