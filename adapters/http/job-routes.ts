/**
 * The job routes (`/v1/jobs...`) over core/jobs JobService and a PageFeed: one implementation for the
 * coordinator's admin API and `crawl --http`, which differ only in the service's registry, counters and
 * seeds and in the feed behind it. Bodies are read only here, after the bearer check (and, in the admin
 * API, the leader check) of the app around them; every bad input is a 400 naming the field
 * (core/jobs/job-request.ts), an unknown job 404, a change an ended job cannot take 409; the app maps them.
 */
import { Hono } from "hono";
import { parseCursor, parseLimit } from "../../core/feed/index.ts";
import { jobCreateRequest, jobJson, jobSeedsRequest, type JobService, type JobView } from "../../core/jobs/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import { parseJsonBody } from "./json-api.ts";

export function jobRoutes(jobs: JobService, feed: PageFeed, maxSeeds: number): Hono {
  const app = new Hono();
  const view = (v: JobView) => jobJson(v.job, v.counts);

  app.post("/v1/jobs", async (c) => {
    const spec = jobCreateRequest(parseJsonBody(await c.req.text(), c.req.header("content-type")), maxSeeds);
    const created = await jobs.create(spec);
    return c.json({ ...view(created), ...(created.seeds && { seeds: created.seeds }) }, 201);
  });
  app.get("/v1/jobs", async (c) => c.json({ jobs: (await jobs.list()).map(view) }));
  app.get("/v1/jobs/:id", async (c) => c.json(view(await jobs.show(c.req.param("id")))));
  for (const action of ["pause", "resume", "cancel"] as const) {
    app.post(`/v1/jobs/:id/${action}`, async (c) => c.json(view(await jobs.act(c.req.param("id"), action))));
  }
  // The job's feed records in order, from the start or after a cursor (core/feed): {records, next}.
  app.get("/v1/jobs/:id/pages", async (c) => {
    const id = c.req.param("id");
    await jobs.show(id);
    const after = parseCursor(c.req.query("after"));
    const page = await feed.read(id, after, parseLimit(c.req.query("limit")));
    return c.json({ records: page.records, next: String(page.next) });
  });
  app.post("/v1/jobs/:id/seeds", async (c) => {
    const id = c.req.param("id");
    // The job is looked up before the body is read: an unknown job is 404 whatever the body.
    await jobs.show(id);
    const { urls, feeds } = jobSeedsRequest(parseJsonBody(await c.req.text(), c.req.header("content-type")), maxSeeds);
    return c.json(await jobs.addSeeds(id, urls, feeds));
  });
  return app;
}
