/**
 * The request log. A record is opened when the request head arrives and closed when the response
 * finishes or the connection closes first (timeouts, resets, a client giving up on a drip), so the log
 * shows how long each request really held its host. Times are epoch milliseconds with sub-millisecond
 * resolution, comparable with `Date.now()`.
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
  res.once("finish", () => done(true));
  res.once("close", () => done(false));
  return rec;
}
