/**
 * Builds the warcio records for one file and one exchange: the `warcinfo` that opens each file, and for a
 * fetch the `response` + `request` pair, linked both ways by WARC-Concurrent-To and to their file by
 * WARC-Warcinfo-ID. Content-Length is left to warcio's serializer, digests to digest.ts.
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

import { WARCRecord, WARC_1_1 } from "warcio";
import { STATUS_CODES } from "node:http";
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

export interface ExchangeRecords {
  /** The `response` record, or the `revisit` record standing for it (`ex.revisit`). */
  response: WARCRecord;
  request: WARCRecord;
  /** The media list of the page (`ex.media`), when it names any, and its block (for the digests). */
  metadata?: { record: WARCRecord; block: Uint8Array };
}

export function buildExchangeRecords(ex: CapturedExchange, warcinfoId: string): ExchangeRecords {
  const responseId = newRecordId();
  const requestId = newRecordId();
  const date = new Date(ex.fetchedAt).toISOString();
  const httpVersion = /^HTTP\//i.test(ex.httpVersion) ? ex.httpVersion : `HTTP/${ex.httpVersion}`;
  const method = (ex.method ?? "GET").toUpperCase();
  const type = ex.revisit ? "revisit" : "response";

  // Header order is kept as given; warcio fills in Content-Type, digests and Content-Length after these.
  const responseWarc: Record<string, string> = {
    "WARC-Type": type,
    "WARC-Record-ID": responseId,
    "WARC-Date": date,
    "WARC-Target-URI": clean(ex.url),
  };
  if (ex.remoteAddress) responseWarc["WARC-IP-Address"] = ex.remoteAddress;
  responseWarc["WARC-Concurrent-To"] = requestId;
  responseWarc["WARC-Warcinfo-ID"] = warcinfoId;
  if (ex.revisit) {
    responseWarc["WARC-Refers-To-Target-URI"] = clean(ex.revisit.refersToUri);
    // The payload is left off on purpose: WARC 1.1 asks for reason "length" on such a truncation.
    responseWarc["WARC-Truncated"] = "length";
  } else if (ex.truncated) {
    responseWarc["WARC-Truncated"] = "length";
  }

  const statusText = clean(ex.statusText ?? STATUS_CODES[ex.status] ?? "");
  const response = WARCRecord.create(
    {
      url: clean(ex.url),
      date,
      type,
      warcVersion: WARC_1_1,
      warcHeaders: responseWarc,
      httpHeaders: storedResponseHeaders(ex),
      statusline: `${httpVersion} ${ex.status}${statusText ? " " + statusText : ""}`,
    },
    ex.revisit ? [] : [ex.body],
  );
  if (ex.revisit) {
    // warcio writes its own identical-payload-digest profile on every revisit; the profile is ours to name.
    response.warcHeaders.headers.set("WARC-Profile", REVISIT_PROFILES[ex.revisit.profile]);
    if (ex.revisit.simhash) response.warcHeaders.headers.set("X-Crawler-SimHash", ex.revisit.simhash);
  }

  const request = WARCRecord.create(
    {
      url: clean(ex.url),
      date,
      type: "request",
      warcVersion: WARC_1_1,
      warcHeaders: {
        "WARC-Type": "request",
        "WARC-Record-ID": requestId,
        "WARC-Date": date,
        "WARC-Target-URI": clean(ex.url),
        "WARC-Concurrent-To": responseId,
        "WARC-Warcinfo-ID": warcinfoId,
      },
      httpHeaders: storedRequestHeaders(ex),
      statusline: `${method} ${requestTarget(ex.url)} ${httpVersion}`,
    },
    [],
  );
  const metadata = ex.media && ex.media.length > 0 ? buildMediaMetadata(ex, date, responseId, warcinfoId) : undefined;
  return metadata ? { response, request, metadata } : { response, request };
}

const encoder = new TextEncoder();

/** The `metadata` record listing a page's media: one `media: <url> <kind> <via>` field per URL. */
function buildMediaMetadata(
  ex: CapturedExchange,
  date: string,
  describes: string,
  warcinfoId: string,
): { record: WARCRecord; block: Uint8Array } {
  const block = encoder.encode(ex.media!.map((m) => `media: ${clean(m.url)} ${m.kind} ${clean(m.via)}\r\n`).join(""));
  const record = WARCRecord.create(
    {
      url: clean(ex.url),
      date,
      type: "metadata",
      warcVersion: WARC_1_1,
      warcHeaders: {
        "WARC-Type": "metadata",
        "WARC-Record-ID": newRecordId(),
        "WARC-Date": date,
        "WARC-Target-URI": clean(ex.url),
        "WARC-Concurrent-To": describes,
        "WARC-Refers-To": describes,
        "WARC-Warcinfo-ID": warcinfoId,
        "Content-Type": "application/warc-fields",
      },
    },
    [block],
  );
  return { record, block };
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
function clean(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}
