import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { WARCSerializer } from "warcio";
import { presetDigests } from "./digest.ts";
import { buildExchangeRecords } from "./records.ts";
import type { CapturedExchange } from "./types.ts";

const ex: CapturedExchange = {
  url: "https://example.com/d?x=1",
  fetchedAt: Date.UTC(2024, 4, 5, 6, 7, 8),
  httpVersion: "1.1",
  requestHeaders: { "User-Agent": "crawler", Accept: "*/*" },
  status: 200,
  responseHeaders: { "Content-Type": "text/html", "Content-Encoding": "br", Vary: "Accept-Encoding" },
  body: new TextEncoder().encode("<p>digest me ü</p>".repeat(50)),
};

function headersOf(bytes: Uint8Array): Record<string, string> {
  const text = new TextDecoder().decode(bytes);
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  return Object.fromEntries(
    head
      .split("\r\n")
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
  );
}

describe("presetDigests", () => {
  test("digest - equals what warcio computes itself, for response and request records", async () => {
    const ours = buildExchangeRecords(ex, "<urn:uuid:info>");
    const theirs = buildExchangeRecords(ex, "<urn:uuid:info>");
    presetDigests(ours.response, ex.body);
    presetDigests(ours.request, new Uint8Array());
    await WARCSerializer.serialize(theirs.response);
    await WARCSerializer.serialize(theirs.request);
    expect(ours.response.warcPayloadDigest).toBe(theirs.response.warcPayloadDigest!);
    expect(ours.response.warcBlockDigest).toBe(theirs.response.warcBlockDigest!);
    expect(ours.request.warcPayloadDigest).toBe(theirs.request.warcPayloadDigest!);
    expect(ours.request.warcBlockDigest).toBe(theirs.request.warcBlockDigest!);
  });

  test("digest - matches a re-hash of the block bytes as stored", async () => {
    const { response } = buildExchangeRecords(ex, "<urn:uuid:info>");
    presetDigests(response, ex.body);
    const stored = gunzipSync(await WARCSerializer.serialize(response, { gzip: true }));
    const headers = headersOf(stored);
    const blockStart = stored.indexOf("\r\n\r\n") + 4; // the block follows the WARC header section
    const block = stored.subarray(blockStart, blockStart + Number(headers["Content-Length"]));
    expect(headers["WARC-Block-Digest"]).toBe(`sha256:${createHash("sha256").update(block).digest("hex")}`);
    expect(headers["WARC-Payload-Digest"]).toBe(`sha256:${createHash("sha256").update(ex.body).digest("hex")}`);
  });
});
