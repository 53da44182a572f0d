/**
 * The CDXJ index beside the WARC files: one line per response record, `<SURT> <timestamp14> <JSON>`, in
 * exactly the form warcio's `CDXIndexer` (format "cdxj") writes, so a file indexed by us and one indexed
 * by warcio/pywb agree byte for byte: same field order, `status`/`length`/`offset` as strings, `digest`
 * without its `sha256:` prefix, `mime` without parameters, and no `mime` when the response had none.
 *
 * The file is an append log in writing order, not sorted; sort it (`LC_ALL=C sort`) before handing it to
 * a replay tool that binary-searches. A crash can leave a torn last line; opening the log cuts it off, so
 * every line in the file is whole.
 */

import { writeSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { surt } from "./surt.ts";

export interface CdxjEntry {
  url: string;
  /** WARC-Date of the record (ISO 8601). */
  warcDate: string;
  method: string;
  contentType?: string;
  status: number;
  /** WARC-Payload-Digest as written, e.g. `sha256:ab12…`. */
  payloadDigest?: string;
  length: number;
  offset: number;
  filename: string;
}

export function cdxjLine(e: CdxjEntry): string {
  // warcio (after pywb) folds a non-GET request into the key, so GET and HEAD of one URL stay distinct.
  // A bodiless request gets an empty `__wb_post_data=`; this writer never stores request bodies.
  const method = e.method.toUpperCase();
  const nonGet = method !== "GET";
  const keyUrl = nonGet ? `${e.url}${e.url.indexOf("?") > 0 ? "&" : "?"}__wb_method=${method}&__wb_post_data=` : e.url;
  const fields: Record<string, string> = { url: e.url };
  const mime = e.contentType?.split(";", 1)[0]?.trim();
  if (mime) fields.mime = mime;
  fields.status = String(e.status);
  const digest = e.payloadDigest?.split(":", 2)[1];
  if (digest) fields.digest = digest;
  fields.length = String(e.length);
  fields.offset = String(e.offset);
  fields.filename = e.filename;
  if (nonGet) {
    fields.method = method;
    fields.requestBody = "__wb_post_data=";
  }
  const timestamp = e.warcDate.replace(/[-:T]/g, "").slice(0, 14);
  return `${surt(keyUrl)} ${timestamp} ${JSON.stringify(fields)}\n`;
}

const encoder = new TextEncoder();

/** Appends whole lines to an index file; cuts a torn tail left by a crash or a failed append. */
export class CdxjLog {
  private needsRepair = true;

  private constructor(private readonly fh: FileHandle) {}

  static async open(path: string): Promise<CdxjLog> {
    const log = new CdxjLog(await open(path, "a+"));
    await log.repairTail();
    return log;
  }

  async append(line: string): Promise<void> {
    if (this.needsRepair) await this.repairTail();
    this.needsRepair = true; // until the whole line is down
    const bytes = encoder.encode(line);
    let done = 0;
    while (done < bytes.length) {
      // A plain write(2), as for the WARC file (warc-file.ts): the promise-based write costs far more CPU.
      const bytesWritten = writeSync(this.fh.fd, bytes, done, bytes.length - done);
      if (bytesWritten <= 0) throw new Error("CdxjLog: write made no progress");
      done += bytesWritten;
    }
    this.needsRepair = false;
  }

  async close(): Promise<void> {
    await this.fh.datasync().catch(() => {});
    await this.fh.close();
  }

  /** Truncates the file after its last newline (O_APPEND writes still go to the new end). */
  private async repairTail(): Promise<void> {
    const size = (await this.fh.stat()).size;
    let end = size;
    const chunk = new Uint8Array(64 * 1024);
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await this.fh.read(chunk, 0, end - start, start);
      const nl = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) {
        end = start + nl + 1;
        break;
      }
      end = start;
    }
    if (end !== size) await this.fh.truncate(end);
    this.needsRepair = false;
  }
}
