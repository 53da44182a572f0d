/**
 * A URL's captures: where each of its last fetches was stored, kept in the URL's own row of the frontier
 * store (urls.captures, engine/frontier/store/url-table.ts), so "where is the capture of this URL" is answered by the node that owns the URL's
 * host from its own state. It survives restarts, travels with the row in handoffs and the replica, and
 * needs no index of its own.
 *
 * Bounded: the newest MAX_CAPTURES_PER_URL are kept. The encoding is a compact JSON array of arrays,
 * newest first, `[epochMs, status, contentType, digest, job, file, offset, length]` (`""` for no content
 * type or digest): about 150 bytes a capture with a bare file name (`crawl-20261204162046-00001.warc.gz`,
 * a text/html type, a 32-digit digest), 190 with an `s3://bucket/prefix/` file. A URL fetched once costs
 * one capture; one refetched often at most 8 (about 1.2-1.5 KB). At a billion URLs, each fetched once,
 * that is about 150 GB across the fleet's frontier stores, and at most about 1.5 TB if every URL were
 * refetched 8 times or more.
 *
 * Why the file is recorded as the fetch path named it: a fetch node that uploads its files names them by
 * the object URL they have once uploaded (the object key is the file name under the upload location, and
 * the spool never renames a file: engine/fetch/warc-upload), so the frontier needs neither to learn when a
 * file was uploaded nor the fetch node's upload settings. A local file name of a fetch node's disk would be
 * of no use to a client after the upload deleted it, and a per-region record of uploaded files would cost a
 * write per file and a lookup per answer. The price: a capture younger than its file's roll plus upload
 * names an object that is not there yet (docs/warc.md).
 */
import type { FetchResult } from "../model/index.ts";
import type { Capture } from "./capture.ts";

/** How many captures a URL keeps, newest first. */
export const MAX_CAPTURES_PER_URL = 8;

/** The job of a URL seeded without one (core/jobs). */
export const DEFAULT_JOB = "default";

type Encoded = [
  fetchedAt: number,
  status: number,
  contentType: string,
  digest: string,
  job: string,
  file: string,
  offset: number,
  length: number,
];

/**
 * Bounds on what a capture keeps, so a result from a faulty or foreign sender cannot grow a URL's row: the
 * fetch path sends at most 200 characters of Content-Type and a 32-digit fingerprint, and names files of a
 * few dozen characters (a few more with an object URL).
 */
const MAX_CONTENT_TYPE = 200;
const MAX_DIGEST = 64;
const MAX_FILE = 1024;

/** The capture a result stored, or undefined when it stored no record (or names no file a fetch path would). */
export function captureOf(result: FetchResult, job = DEFAULT_JOB): Capture | undefined {
  if (!result.warc || result.warc.file.length > MAX_FILE) return undefined;
  return {
    fetchedAt: Math.round(result.endedAt),
    status: result.status,
    contentType: (result.contentType ?? "").slice(0, MAX_CONTENT_TYPE),
    digest: (result.fingerprint ?? "").slice(0, MAX_DIGEST),
    job,
    warc: { file: result.warc.file, offset: result.warc.offset, length: result.warc.length },
  };
}

/** `encoded` with `capture` added as the newest, the oldest dropped past MAX_CAPTURES_PER_URL. */
export function withCapture(encoded: string | null | undefined, capture: Capture): string {
  const kept = parse(encoded).slice(0, MAX_CAPTURES_PER_URL - 1);
  const c = capture;
  const entry: Encoded = [c.fetchedAt, c.status, c.contentType, c.digest, c.job, c.warc.file, c.warc.offset, c.warc.length];
  return JSON.stringify([entry, ...kept]);
}

/** The captures of a URL's row, newest first; [] for none (and for a value this module did not write). */
export function decodeCaptures(encoded: string | null | undefined): Capture[] {
  return parse(encoded).map(([fetchedAt, status, contentType, digest, job, file, offset, length]) => ({
    fetchedAt,
    status,
    contentType,
    digest,
    job,
    warc: { file, offset, length },
  }));
}

function parse(encoded: string | null | undefined): Encoded[] {
  if (!encoded) return [];
  try {
    const value: unknown = JSON.parse(encoded);
    return Array.isArray(value) ? value.filter(isEncoded) : [];
  } catch {
    // A damaged value loses the URL's capture history, never its row.
    return [];
  }
}

function isEncoded(v: unknown): v is Encoded {
  return (
    Array.isArray(v) &&
    v.length === 8 &&
    typeof v[0] === "number" &&
    typeof v[1] === "number" &&
    typeof v[2] === "string" &&
    typeof v[3] === "string" &&
    typeof v[4] === "string" &&
    typeof v[5] === "string" &&
    typeof v[6] === "number" &&
    typeof v[7] === "number"
  );
}
