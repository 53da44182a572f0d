/**
 * A second reader of WARC files for tests, independent of warcio and of the writer's own code: it walks
 * the gzip members byte by byte (RFC 1952: magic, method, flags, CRC-32 and ISIZE of each member checked)
 * and parses each record by the WARC 1.1 grammar (`WARC/1.1` CRLF, named fields `name: value` CRLF, an
 * empty line, exactly Content-Length bytes of block, then CRLF CRLF), checking the fields WARC 1.1 makes
 * mandatory (WARC-Record-ID, Content-Length, WARC-Date, WARC-Type) and their forms. Anything off throws,
 * saying where.
 */
import { crc32, inflateRawSync } from "node:zlib";

export interface GzipMember {
  /** Where the member starts in the file, and its length in bytes. */
  offset: number;
  length: number;
  /** Its content, inflated. */
  data: Uint8Array;
}

/** Every gzip member of `bytes`, in order; throws unless the file is whole members end to end. */
export function gzipMembers(bytes: Uint8Array): GzipMember[] {
  const out: GzipMember[] = [];
  for (let pos = 0; pos < bytes.length; ) {
    const member = gzipMemberAt(bytes, pos);
    out.push(member);
    pos += member.length;
  }
  return out;
}

/** The one gzip member starting at `pos`. */
export function gzipMemberAt(bytes: Uint8Array, pos: number): GzipMember {
  const b = bytes.subarray(pos);
  if (b[0] !== 0x1f || b[1] !== 0x8b) throw new Error(`no gzip magic at ${pos}`);
  if (b[2] !== 8) throw new Error(`gzip member at ${pos} is not deflate (CM ${b[2]})`);
  const flags = b[3]!;
  let at = 10;
  if (flags & 4) at += 2 + (b[at]! | (b[at + 1]! << 8));
  if (flags & 8) at = b.indexOf(0, at) + 1;
  if (flags & 16) at = b.indexOf(0, at) + 1;
  if (flags & 2) at += 2;
  const inflated = inflateRawSync(b.subarray(at), { info: true } as never) as unknown as {
    buffer: Uint8Array;
    engine: { bytesWritten: number };
  };
  const end = at + inflated.engine.bytesWritten;
  if (end + 8 > b.length) throw new Error(`gzip member at ${pos} has no trailer`);
  const trailer = new DataView(b.buffer, b.byteOffset + end, 8);
  const data = new Uint8Array(inflated.buffer);
  if (trailer.getUint32(0, true) !== crc32(data)) throw new Error(`gzip member at ${pos}: CRC-32 does not match`);
  if (trailer.getUint32(4, true) !== data.length % 2 ** 32) throw new Error(`gzip member at ${pos}: ISIZE does not match`);
  return { offset: pos, length: end + 8, data };
}

export interface ParsedRecord {
  /** Named fields in order, as written. */
  fields: Array<[name: string, value: string]>;
  block: Uint8Array;
  /** The first value of a field, case-insensitive name; undefined when absent. */
  get(name: string): string | undefined;
}

const CRLF = "\r\n";
const RECORD_ID = /^<[a-z][a-z0-9+.-]*:[^\s<>]+>$/i;
const WARC_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses one WARC 1.1 record (the content of one gzip member) and checks its grammar and mandatory fields. */
export function parseWarcRecord(data: Uint8Array): ParsedRecord {
  const text = new TextDecoder("latin1").decode(data);
  const headEnd = text.indexOf(CRLF + CRLF);
  if (headEnd < 0) throw new Error("record has no end of header");
  const lines = text.slice(0, headEnd).split(CRLF);
  if (lines[0] !== "WARC/1.1") throw new Error(`record starts ${JSON.stringify(lines[0])}, not WARC/1.1`);
  const fields: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon <= 0 || !FIELD_NAME.test(name)) throw new Error(`malformed named field ${JSON.stringify(line)}`);
    fields.push([name, line.slice(colon + 1).trim()]);
  }
  const get = (name: string) => fields.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
  for (const mandatory of ["WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type"]) {
    if (get(mandatory) === undefined) throw new Error(`record lacks mandatory ${mandatory}`);
  }
  if (!RECORD_ID.test(get("WARC-Record-ID")!)) throw new Error(`WARC-Record-ID ${get("WARC-Record-ID")} is not a <URI>`);
  if (!WARC_DATE.test(get("WARC-Date")!)) throw new Error(`WARC-Date ${get("WARC-Date")} is not a W3C-ISO8601 UTC time`);
  const length = Number(get("Content-Length"));
  const blockStart = headEnd + 4;
  if (!Number.isSafeInteger(length) || blockStart + length + 4 !== data.length) {
    throw new Error(
      `Content-Length ${get("Content-Length")} does not match the block (${data.length - blockStart - 4} bytes before the end)`,
    );
  }
  if (text.slice(blockStart + length) !== CRLF + CRLF) throw new Error("record does not end with CRLF CRLF");
  return { fields, block: data.subarray(blockStart, blockStart + length), get };
}
