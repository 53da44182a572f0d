/**
 * `GET /v1/captures?url=URL[&limit=N]`: where a URL's last captures are stored, newest first, as a JSON
 * array of `{timestamp, status, contentType, digest, job, warc: {file, offset, length}}` (core/captures).
 * One implementation for the coordinator's admin API (the frontier node holding the host answers, over
 * gRPC) and `crawl --http` (its own frontier); `lookup` is the difference. A missing, malformed or
 * uncrawlable `url`, or a `limit` that is not a whole number from 1 to 1000, is a 400 (json-api.ts); a URL
 * with no capture (unknown, not fetched yet, nothing stored) is `[]` with 200.
 */
import { Hono } from "hono";
import { captureJson, captureLimitOf, type Capture } from "../../core/captures/index.ts";
import { requiredQuery } from "./json-api.ts";

/** Finds a URL's captures; errors are the project's (core/errors), mapped by the mounting app. */
export type CaptureLookup = (url: string, limit: number) => Promise<Capture[]>;

export function capturesRoutes(lookup: CaptureLookup): Hono {
  const app = new Hono();
  app.get("/v1/captures", async (c) => {
    const url = requiredQuery(c.req.query("url"), "url");
    const limit = captureLimitOf(c.req.query("limit"));
    const captures = await lookup(url, limit);
    return c.json(captures.slice(0, limit).map(captureJson));
  });
  return app;
}
