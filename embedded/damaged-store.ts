/**
 * What `crawl` says (one log line of several lines of text) when a store under --out is damaged (corrupt,
 * torn, not SQLite): which file, what it held, what is safe, and how to go on. Honest about the loss: the
 * queue and URL states live only in frontier.sqlite; the pages already fetched are safe in the WARC files,
 * but the crawl cannot rebuild its queue from them, so going on means recovering the file or starting over
 * from the seeds. The small files beside it (content index, crawl jobs, page feed) say what each holds.
 */
import { basename, join } from "node:path";
import { StoreDamagedError } from "../core/errors/index.ts";

export function damagedStoreMessage(error: StoreDamagedError | Error, out: string): string {
  const path = error instanceof StoreDamagedError ? error.path : undefined;
  const detail = error instanceof StoreDamagedError ? error.detail : error.message;
  const frontier = join(out, "frontier.sqlite");
  if (path && basename(path) === "content.sqlite") {
    return [
      `${path} is damaged (${detail}).`,
      "  It holds only content fingerprints (duplicate detection); nothing of the crawl's queue is in it.",
      `  To go on: move ${path} and its -wal and -shm files aside and run the same command again. Nothing is`,
      "  lost; a page whose exact duplicate was stored before may be stored once more.",
    ].join("\n");
  }
  if (path && basename(path) === "pages.sqlite") {
    return [
      `${path} is damaged (${detail}).`,
      "  It holds only the feed of fetched pages (GET /v1/jobs/{id}/pages); the crawl's queue and pages are elsewhere.",
      `  To go on: move ${path} and its -wal and -shm files aside and run the same command again. The feed then`,
      "  starts empty: the records of earlier page results are lost, the pages themselves are safe in the WARC files.",
    ].join("\n");
  }
  if (path && basename(path) === "jobs.sqlite") {
    return [
      `${path} is damaged (${detail}).`,
      "  It holds the crawl jobs' records (ids, limits, states); their URLs and counts are in frontier.sqlite.",
      `  To go on: recover it (sqlite3 ${path} ".recover" | sqlite3 ${join(out, "jobs.recovered.sqlite")}, then move the`,
      `  recovered file to ${path}), or move it aside and run the same command again: the jobs are then unknown,`,
      "  their queued URLs are crawled as if running, and a new job may be given an old one's number (and its URLs).",
    ].join("\n");
  }
  return [
    `${path ?? `a store under ${out}`} is damaged (${detail}).`,
    "  It holds the queue, every URL's state and schedule, and each host's politeness state and robots.txt verdict.",
    `  Safe: every page fetched so far, in ${join(out, "warc")} (each record is its own gzip member; index.cdxj lists them).`,
    "  To go on, either",
    `   - recover it: sqlite3 ${frontier} ".recover" | sqlite3 ${join(out, "frontier.recovered.sqlite")}, then move the`,
    `     recovered file to ${frontier} (removing its -wal and -shm files) and run the same command again; or`,
    `   - start over: move ${frontier}* and ${join(out, "seen.bloom")} aside and run the same command again. The crawl`,
    `     starts from its seeds and fetches again pages already in ${join(out, "warc")} (into new WARC files; the old ones stay).`,
  ].join("\n");
}
