import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { WARCRecord, WARCSerializer, WARC_1_1 } from "warcio";
import { serializeExchange } from "./records.ts";
import type { CapturedExchange } from "./types.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const base: CapturedExchange = {
  url: "https://example.com/d?x=1",
  fetchedAt: Date.UTC(2024, 4, 5, 6, 7, 8),
  remoteAddress: "192.0.2.7",
  httpVersion: "1.1",
  requestHeaders: { "User-Agent": "crawler", Accept: "*/*" },
  status: 200,
  responseHeaders: { "Content-Type": "text/html", "Content-Encoding": "br", Vary: "Accept-Encoding", "Set-Cookie": "a=1, b=2" },
  body: encoder.encode("<p>digest me ü</p>".repeat(50)),
};

/** The exchanges a crawl writes: plain, without an address, cut at the cap, both revisit kinds, with media, odd ones. */
const EXCHANGES: Array<[string, CapturedExchange]> = [
  ["a response", base],
  ["no remote address", { ...base, remoteAddress: undefined }],
  ["a truncated body", { ...base, truncated: true }],
  ["an identical-payload revisit", { ...base, revisit: { profile: "identical-payload-digest", refersToUri: "https://example.com/a" } }],
  [
    "a near-duplicate revisit",
    { ...base, revisit: { profile: "near-duplicate", refersToUri: "https://example.com/b", simhash: "00ff00ff00ff00ff" } },
  ],
  [
    "a page naming media",
    {
      ...base,
      media: [
        { url: "https://example.com/i.png", kind: "image", via: "img/@src" },
        { url: "https://cdn.example.com/v.mp4", kind: "video", via: "video/source/@src" },
      ],
    },
  ],
  ["an empty body, a status without a reason phrase", { ...base, status: 599, body: new Uint8Array(0), responseHeaders: {} }],
  ["header values with CR and LF", { ...base, responseHeaders: { "X-Evil": "a\r\nWARC-Type: forged", "Content-Type": "text/html" } }],
  [
    "a non-ASCII header value and a HEAD request",
    { ...base, method: "head", responseHeaders: { "Content-Disposition": "inline; filename=ü.html" } },
  ],
];

/** A record's WARC fields in order, and its block. */
function split(bytes: Uint8Array): { fields: Array<[string, string]>; block: Uint8Array } {
  const text = decoder.decode(bytes);
  const headEnd = text.indexOf("\r\n\r\n");
  const fields = text
    .slice(0, headEnd)
    .split("\r\n")
    .slice(1)
    .map((line): [string, string] => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]);
  const start = encoder.encode(text.slice(0, headEnd + 4)).length;
  const length = Number(fields.find(([name]) => name === "Content-Length")![1]);
  return { fields, block: bytes.subarray(start, start + length) };
}

/** The HTTP head of an application/http block: its start line and headers, and the payload after it. */
function httpParts(block: Uint8Array): { statusline: string; headers: Record<string, string>; payload: Uint8Array } {
  const text = decoder.decode(block);
  const headEnd = text.indexOf("\r\n\r\n");
  const [statusline, ...lines] = text.slice(0, headEnd).split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
  return { statusline: statusline!, headers, payload: block.subarray(encoder.encode(text.slice(0, headEnd + 4)).length) };
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
/** Fields warcio adds itself (Content-Type of application/http records, digests, length), or that we set after create. */
const ADDED = new Set(["WARC-Payload-Digest", "WARC-Block-Digest", "Content-Length", "WARC-Profile", "X-Crawler-SimHash"]);

/** The same record built by warcio from the same fields and block, digests left to warcio where it can compute them. */
async function warcioRecord(ours: Uint8Array, ex: CapturedExchange): Promise<Uint8Array> {
  const { fields, block } = split(ours);
  const f = Object.fromEntries(fields);
  const type = f["WARC-Type"] as "response" | "revisit" | "request" | "metadata";
  const http = type === "metadata" ? undefined : httpParts(block);
  const given = fields.filter(([name]) => !ADDED.has(name) && (type === "metadata" || name !== "Content-Type"));
  const record = WARCRecord.create(
    {
      url: f["WARC-Target-URI"],
      date: f["WARC-Date"],
      type,
      warcVersion: WARC_1_1,
      warcHeaders: Object.fromEntries(given),
      ...(http ? { httpHeaders: http.headers, statusline: http.statusline } : {}),
    },
    [http ? http.payload : block],
  );
  if (type === "revisit") {
    record.warcHeaders.headers.set("WARC-Profile", f["WARC-Profile"]!);
    if (f["X-Crawler-SimHash"]) record.warcHeaders.headers.set("X-Crawler-SimHash", f["X-Crawler-SimHash"]);
    // warcio cannot know the payload a revisit leaves out: both digests are given, computed here independently.
    record.warcHeaders.headers.set("WARC-Payload-Digest", sha256(ex.body));
    record.warcHeaders.headers.set("WARC-Block-Digest", sha256(block));
  }
  return WARCSerializer.serialize(record, { gzip: false });
}

describe("serializeExchange", () => {
  for (const [name, ex] of EXCHANGES) {
    test(`records - ${name}: every record is byte for byte what warcio writes for the same fields, digests included`, async () => {
      const out = serializeExchange(ex, "<urn:uuid:info>");
      const records = [out.response, out.request, ...(out.metadata ? [out.metadata] : [])];
      expect(records.length).toBe(ex.media ? 3 : 2);
      for (const bytes of records) expect(decoder.decode(bytes)).toBe(decoder.decode(await warcioRecord(bytes, ex)));
    });
  }

  test("records - the response, request and media records name each other and the warcinfo", () => {
    const out = serializeExchange(EXCHANGES[5]![1], "<urn:uuid:info>");
    const [response, request, metadata] = [out.response, out.request, out.metadata!].map((r) => Object.fromEntries(split(r).fields));
    expect(response!["WARC-Concurrent-To"]).toBe(request!["WARC-Record-ID"]!);
    expect(request!["WARC-Concurrent-To"]).toBe(response!["WARC-Record-ID"]!);
    expect(metadata!["WARC-Refers-To"]).toBe(response!["WARC-Record-ID"]!);
    for (const r of [response, request, metadata]) expect(r!["WARC-Warcinfo-ID"]).toBe("<urn:uuid:info>");
    expect(out.targetUri).toBe(base.url);
    expect(out.date).toBe("2024-05-05T06:07:08.000Z");
    expect(out.payloadDigest).toBe(sha256(base.body));
  });

  test("records - a revisit stores the response head alone, digested, and the received payload's digest", () => {
    const ex = EXCHANGES[4]![1];
    const { fields, block } = split(serializeExchange(ex, "<urn:uuid:info>").response);
    const f = Object.fromEntries(fields);
    expect(decoder.decode(block).endsWith("\r\n\r\n")).toBe(true);
    expect(httpParts(block).payload.length).toBe(0);
    expect(f["WARC-Block-Digest"]).toBe(sha256(block));
    expect(f["WARC-Payload-Digest"]).toBe(sha256(ex.body));
    expect(f["WARC-Truncated"]).toBe("length");
  });
});
