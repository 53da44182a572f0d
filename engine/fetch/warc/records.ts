/**
 * Builds the warcio records for one file and one exchange: the `warcinfo` that opens each file, and the
 * `response` + `request` pair for a fetch, linked both ways by WARC-Concurrent-To and to their file by
 * WARC-Warcinfo-ID. Digests and Content-Length are left to warcio's serializer.
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
import type { CapturedExchange } from "./types.ts";

const CONFORMS_TO = "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/";

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
  response: WARCRecord;
  request: WARCRecord;
}

export function buildExchangeRecords(ex: CapturedExchange, warcinfoId: string): ExchangeRecords {
  const responseId = newRecordId();
  const requestId = newRecordId();
  const date = new Date(ex.fetchedAt).toISOString();
  const httpVersion = /^HTTP\//i.test(ex.httpVersion) ? ex.httpVersion : `HTTP/${ex.httpVersion}`;
  const method = (ex.method ?? "GET").toUpperCase();

  // Header order is kept as given; warcio fills in Content-Type, digests and Content-Length after these.
  const responseWarc: Record<string, string> = {
    "WARC-Type": "response",
    "WARC-Record-ID": responseId,
    "WARC-Date": date,
    "WARC-Target-URI": clean(ex.url),
  };
  if (ex.remoteAddress) responseWarc["WARC-IP-Address"] = ex.remoteAddress;
  responseWarc["WARC-Concurrent-To"] = requestId;
  responseWarc["WARC-Warcinfo-ID"] = warcinfoId;
  if (ex.truncated) responseWarc["WARC-Truncated"] = "length";

  const statusText = clean(ex.statusText ?? STATUS_CODES[ex.status] ?? "");
  const response = WARCRecord.create(
    {
      url: clean(ex.url),
      date,
      type: "response",
      warcVersion: WARC_1_1,
      warcHeaders: responseWarc,
      httpHeaders: storedResponseHeaders(ex),
      statusline: `${httpVersion} ${ex.status}${statusText ? " " + statusText : ""}`,
    },
    [ex.body],
  );

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
  return { response, request };
}

/** The response headers as they describe the stored (decoded) body; see the module comment for why. */
export function storedResponseHeaders(ex: CapturedExchange): Record<string, string> {
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
