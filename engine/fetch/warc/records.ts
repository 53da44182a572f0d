/**
 * The records of one file and one exchange: the `warcinfo` that opens each file (a warcio record, once per
 * file), and for a fetch the `response` + `request` pair (serialized here), linked both ways by
 * WARC-Concurrent-To and to their file by WARC-Warcinfo-ID, with their SHA-256 payload and block digests.
 *
 * Two additions to a capture (docs/warc.md says why and how to read them):
 *  - a `revisit` record takes the response's place when the payload duplicates stored content: profile
 *    identical-payload-digest (WARC 1.1) for the same bytes, or this project's near-duplicate profile for a
 *    page whose text's SimHash is within 3 bits of a stored page. The block is the HTTP response headers
 *    alone (WARC-Truncated: length), WARC-Payload-Digest is the digest of the payload actually received, and
 *    WARC-Refers-To-Target-URI names the page whose capture holds the content;
 *  - a `metadata` record (application/warc-fields) lists the media URLs the page names, one `media:` field
 *    each (`<url> <kind> <element/@attribute>`), tied to the response (or revisit) by WARC-Concurrent-To (same
 *    capture event) and WARC-Refers-To (the record it describes).
 *
 * The body arrives decompressed (the fetch step must decode it to cap its size and parse it), so the
 * stored HTTP headers are rewritten to describe the bytes actually stored: Content-Encoding and
 * Transfer-Encoding are dropped and Content-Length is set to the stored length. Keeping
 * `Content-Encoding: gzip` over a plain body would make every replay tool try to gunzip it and fail; a
 * stale Content-Length would make HTTP parsers read the wrong number of bytes. The original values are kept
 * under `X-Crawler-Original-*` so nothing the server said is lost.
 */

import { createHash } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { WARCRecord, WARC_1_1 } from "warcio";
import type { CapturedExchange, Revisit } from "./types.ts";

const CONFORMS_TO = "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/";

/** The revisit profiles: WARC 1.1's for identical payloads, and this project's own for near duplicates. */
export const REVISIT_PROFILES: Record<Revisit["profile"], string> = {
  "identical-payload-digest": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
  "near-duplicate": "https://github.com/polite-crawler/crawler/blob/main/docs/warc.md#near-duplicate-revisits",
};

export function newRecordId(): string {
  return `<urn:uuid:${crypto.randomUUID()}>`;
}

export function buildWarcinfo(filename: string, software: string, atMs: number, id: string): WARCRecord {
  return WARCRecord.createWARCInfo(
    {
      filename,
      date: new Date(atMs).toISOString(),
      warcVersion: WARC_1_1,
      warcHeaders: { "WARC-Type": "warcinfo", "WARC-Record-ID": id },
    },
    { software, format: "WARC File Format 1.1", conformsTo: CONFORMS_TO, robots: "obey" },
  );
}

/**
 * One exchange's records, serialized (uncompressed), and what the index line needs of the response record.
 * Written directly rather than through warcio's record objects and async serializer, which cost more than
 * the rest of a record's bytes; the bytes are exactly those warcio writes for the same headers (its field
 * order: ours, then the Content-Type and WARC-Profile it adds, the digests, Content-Length), which the tests
 * check by parsing each record with warcio and serializing it again.
 */
export interface SerializedExchange {
  /** The `response` record, or the `revisit` record standing for it (`ex.revisit`). */
  response: Uint8Array;
  request: Uint8Array;
  /** The `metadata` record listing the page's media (`ex.media`), when it names any. */
  metadata?: Uint8Array;
  /** The response record's WARC-Record-ID (what a conversion record of the same capture refers to). */
  responseId: string;
  /** The response record's WARC-Target-URI, WARC-Date and WARC-Payload-Digest. */
  targetUri: string;
  date: string;
  payloadDigest: string;
}

export function serializeExchange(ex: CapturedExchange, warcinfoId: string): SerializedExchange {
  const responseId = newRecordId();
  const requestId = newRecordId();
  const date = new Date(ex.fetchedAt).toISOString();
  const httpVersion = /^HTTP\//i.test(ex.httpVersion) ? ex.httpVersion : `HTTP/${ex.httpVersion}`;
  const method = (ex.method ?? "GET").toUpperCase();
  const type = ex.revisit ? "revisit" : "response";
  const targetUri = clean(ex.url);

  // Header order is kept as given, then what warcio would add: its revisit profile (ours named instead) and
  // Content-Type, then the digests and Content-Length (recordBytes).
  const responseFields: string[] = [
    `WARC-Type: ${type}`,
    `WARC-Record-ID: ${responseId}`,
    `WARC-Date: ${date}`,
    `WARC-Target-URI: ${targetUri}`,
  ];
  if (ex.remoteAddress) responseFields.push(`WARC-IP-Address: ${ex.remoteAddress}`);
  responseFields.push(`WARC-Concurrent-To: ${requestId}`, `WARC-Warcinfo-ID: ${warcinfoId}`);
  if (ex.revisit) {
    responseFields.push(`WARC-Refers-To-Target-URI: ${clean(ex.revisit.refersToUri)}`);
    // The payload is left off on purpose: WARC 1.1 asks for reason "length" on such a truncation.
    responseFields.push("WARC-Truncated: length", `WARC-Profile: ${REVISIT_PROFILES[ex.revisit.profile]}`);
  } else if (ex.truncated) {
    responseFields.push("WARC-Truncated: length");
  }
  responseFields.push("Content-Type: application/http; msgtype=response");
  if (ex.revisit?.simhash) responseFields.push(`X-Crawler-SimHash: ${ex.revisit.simhash}`);

  const statusText = clean(ex.statusText ?? STATUS_CODES[ex.status] ?? "");
  const responseHead = httpHead(`${httpVersion} ${ex.status}${statusText ? " " + statusText : ""}`, storedResponseHeaders(ex));
  const payloadDigest = sha256(ex.body);
  const response = recordBytes(responseFields, payloadDigest, responseHead, ex.revisit ? EMPTY : ex.body);

  const requestFields = [
    "WARC-Type: request",
    `WARC-Record-ID: ${requestId}`,
    `WARC-Date: ${date}`,
    `WARC-Target-URI: ${targetUri}`,
    `WARC-Concurrent-To: ${responseId}`,
    `WARC-Warcinfo-ID: ${warcinfoId}`,
    "Content-Type: application/http; msgtype=request",
  ];
  const requestHead = httpHead(`${method} ${requestTarget(ex.url)} ${httpVersion}`, storedRequestHeaders(ex));
  const request = recordBytes(requestFields, EMPTY_DIGEST, requestHead, EMPTY);

  const out: SerializedExchange = { response, request, responseId, targetUri, date, payloadDigest };
  if (ex.media && ex.media.length > 0) out.metadata = mediaMetadata(ex, targetUri, date, responseId, warcinfoId);
  return out;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);
const EMPTY_DIGEST = sha256(EMPTY);
const CRLF2 = encoder.encode("\r\n\r\n");

export function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** An HTTP message's head as stored: the start line, `name: value` lines, the empty line. */
function httpHead(startLine: string, headers: Record<string, string>): Uint8Array {
  let text = `${startLine}\r\n`;
  for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
  return encoder.encode(`${text}\r\n`);
}

/**
 * A record: `WARC/1.1`, `fields`, the digests (the payload's as given, the block's over head + payload),
 * Content-Length, the block (`head` then `payload`) and the two CRLFs that end a record.
 */
export function recordBytes(fields: string[], payloadDigest: string, head: Uint8Array, payload: Uint8Array): Uint8Array {
  const blockDigest = `sha256:${createHash("sha256").update(head).update(payload).digest("hex")}`;
  const length = head.length + payload.length;
  const warcHead = encoder.encode(
    `${WARC_1_1}\r\n${fields.join("\r\n")}\r\nWARC-Payload-Digest: ${payloadDigest}\r\nWARC-Block-Digest: ${blockDigest}\r\nContent-Length: ${length}\r\n\r\n`,
  );
  const out = new Uint8Array(warcHead.length + length + CRLF2.length);
  out.set(warcHead, 0);
  out.set(head, warcHead.length);
  out.set(payload, warcHead.length + head.length);
  out.set(CRLF2, warcHead.length + length);
  return out;
}

/** The `metadata` record listing a page's media: one `media: <url> <kind> <via>` field per URL. */
function mediaMetadata(ex: CapturedExchange, targetUri: string, date: string, describes: string, warcinfoId: string): Uint8Array {
  const block = encoder.encode(ex.media!.map((m) => `media: ${clean(m.url)} ${m.kind} ${clean(m.via)}\r\n`).join(""));
  const fields = [
    "WARC-Type: metadata",
    `WARC-Record-ID: ${newRecordId()}`,
    `WARC-Date: ${date}`,
    `WARC-Target-URI: ${targetUri}`,
    `WARC-Concurrent-To: ${describes}`,
    `WARC-Refers-To: ${describes}`,
    `WARC-Warcinfo-ID: ${warcinfoId}`,
    "Content-Type: application/warc-fields",
  ];
  return recordBytes(fields, sha256(block), EMPTY, block);
}

/**
 * The response headers as they describe the stored (decoded) body; see the module comment for why. A
 * revisit keeps the length of the payload it stands for: the headers describe the response as received.
 */
function storedResponseHeaders(ex: CapturedExchange): Record<string, string> {
  const out: Record<string, string> = {};
  let contentEncoding = ex.contentEncodingRemoved;
  let transferEncoding: string | undefined;
  let originalLength: string | undefined;
  let lengthPlaced = false;
  const storedLength = String(ex.body.length);
  for (const [name, value] of Object.entries(ex.responseHeaders)) {
    switch (name.toLowerCase()) {
      case "content-encoding":
        contentEncoding ??= value;
        continue;
      case "transfer-encoding":
        transferEncoding = value;
        continue;
      case "content-length":
        originalLength = value;
        // Keep the header where the server put it, with the stored length.
        out[clean(name)] = storedLength;
        lengthPlaced = true;
        continue;
    }
    out[clean(name)] = clean(value);
  }
  if (!lengthPlaced) out["Content-Length"] = storedLength;
  if (contentEncoding && contentEncoding.toLowerCase() !== "identity") {
    out["X-Crawler-Original-Content-Encoding"] = clean(contentEncoding);
  }
  if (transferEncoding) out["X-Crawler-Original-Transfer-Encoding"] = clean(transferEncoding);
  if (originalLength !== undefined && originalLength.trim() !== storedLength) {
    out["X-Crawler-Original-Content-Length"] = clean(originalLength);
  }
  return out;
}

/** The request headers as sent; Host is added when the client set it implicitly (undici does). */
function storedRequestHeaders(ex: CapturedExchange): Record<string, string> {
  const out: Record<string, string> = {};
  const hasHost = Object.keys(ex.requestHeaders).some((n) => n.toLowerCase() === "host");
  if (!hasHost) {
    try {
      out.Host = new URL(ex.url).host;
    } catch {
      // An unparsable URL has no host to name; the record still carries the URL in WARC-Target-URI.
    }
  }
  for (const [name, value] of Object.entries(ex.requestHeaders)) out[clean(name)] = clean(value);
  return out;
}

/** The origin-form request target (`/path?query`) of an absolute URL. */
function requestTarget(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** A CR or LF in a header would let a hostile server forge WARC or HTTP header lines. */
export function clean(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}
