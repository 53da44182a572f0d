/**
 * Reads WARC files back with warcio's parser, for tests and for a future `crawl export`: iterate every
 * record of a file, or read the one record at an offset taken from index.cdxj (one seek, one gzip member).
 * Payloads are returned as stored, without HTTP headers; this writer stores them already decoded.
 */

import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { WARCParser, type WARCRecord } from "warcio";

export interface WarcRecordView {
  type: string;
  url?: string;
  /** HTTP status, for response and revisit records. */
  status?: number;
  /** The record block after any HTTP headers. */
  payload: Uint8Array;
  warcHeaders: Record<string, string>;
  httpHeaders?: Record<string, string>;
  /** Byte offset of the record in the file (start of its gzip member in a .warc.gz). */
  offset: number;
  /** Bytes the record occupies in the file. */
  length: number;
}

export async function* readWarc(path: string): AsyncGenerator<WarcRecordView> {
  const stream = createReadStream(path);
  try {
    const parser = new WARCParser(stream, { keepHeadersCase: true });
    for await (const record of parser) {
      const payload = await record.readFully(false);
      yield view(record, payload, parser.offset, parser.recordLength);
    }
  } finally {
    stream.destroy(); // a consumer that stops early must not leak the descriptor
  }
}

/** Reads the single record stored at `offset` (as recorded in index.cdxj). */
export async function readRecordAt(path: string, offset: number, length: number): Promise<WarcRecordView> {
  const fh = await open(path, "r");
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(length);
    const { bytesRead } = await fh.read(bytes, 0, length, offset);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const parser = new WARCParser([bytes], { keepHeadersCase: true });
  const record = await parser.parse();
  if (!record) throw new Error(`readRecordAt: no WARC record at ${path}:${offset}`);
  const payload = await record.readFully(false);
  return view(record, payload, offset, length);
}

function view(record: WARCRecord, payload: Uint8Array, offset: number, length: number): WarcRecordView {
  const out: WarcRecordView = {
    type: record.warcType,
    payload,
    warcHeaders: Object.fromEntries(record.warcHeaders.headers),
    offset,
    length,
  };
  const url = record.warcTargetURI;
  if (url) out.url = url;
  if (record.httpHeaders) {
    out.httpHeaders = Object.fromEntries(record.httpHeaders.headers);
    // warcio types the code as number | string ("" when the status line has none).
    const status = Number(record.httpHeaders.statusCode);
    if ((record.warcType === "response" || record.warcType === "revisit") && status > 0) out.status = status;
  }
  return out;
}
