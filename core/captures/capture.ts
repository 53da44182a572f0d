/** One capture of a URL, as the frontier keeps it and as the APIs answer it. */
import type { RecordLocation } from "../model/index.ts";

export interface Capture {
  /** When the response arrived, epoch ms (the frontier's clock). */
  fetchedAt: number;
  status: number;
  /** The response's Content-Type; "" when it had none. */
  contentType: string;
  /** The crawler's content fingerprint of the payload (128-bit MurmurHash3, hex), equal for equal bytes; "" for a non-2xx answer. */
  digest: string;
  job: string;
  /** The response (or revisit) record. */
  warc: RecordLocation;
}

/** A capture as the HTTP APIs answer it (GET /v1/captures). */
export interface CaptureJson {
  /** When the response arrived, ISO 8601 UTC with milliseconds. */
  timestamp: string;
  status: number;
  contentType: string | null;
  digest: string | null;
  job: string;
  warc: { file: string; offset: number; length: number };
}

export function captureJson(c: Capture): CaptureJson {
  return {
    timestamp: new Date(c.fetchedAt).toISOString(),
    status: c.status,
    contentType: c.contentType || null,
    digest: c.digest || null,
    job: c.job,
    warc: { file: c.warc.file, offset: c.warc.offset, length: c.warc.length },
  };
}
