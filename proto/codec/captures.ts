/**
 * A URL's captures (engine/frontier captures.ts) <-> crawler.frontier.v1.Capture. A capture from the wire
 * must name its record (a file and a length): anything else is a CodecError.
 */
import type { Capture } from "../../core/captures/index.ts";
import type * as pb from "../gen/crawler/frontier/v1/frontier.ts";
import { CodecError } from "./errors.ts";
import { fromInt64, toInt64, toUint32, toUint64 } from "./numbers.ts";

export function captureToProto(c: Capture): pb.Capture {
  return {
    fetchedAtMs: toInt64("fetchedAt", c.fetchedAt),
    status: toUint32("status", c.status),
    contentType: c.contentType,
    digest: c.digest,
    job: c.job,
    warc: { file: c.warc.file, offset: toUint64("warc.offset", c.warc.offset), length: toUint64("warc.length", c.warc.length) },
  };
}

export function captureFromProto(msg: pb.Capture): Capture {
  if (!msg.warc || msg.warc.file === "" || msg.warc.length === 0n) throw new CodecError("capture without a record location");
  return {
    fetchedAt: fromInt64("fetchedAtMs", msg.fetchedAtMs),
    status: msg.status,
    contentType: msg.contentType,
    digest: msg.digest,
    job: msg.job,
    warc: { file: msg.warc.file, offset: fromInt64("warc.offset", msg.warc.offset), length: fromInt64("warc.length", msg.warc.length) },
  };
}
