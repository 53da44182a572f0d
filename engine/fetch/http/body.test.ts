import { expect, test } from "bun:test";
import { Readable } from "node:stream";
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { readBody } from "./body.ts";
import { BadEncodingError } from "./errors.ts";

const text = "Hello, crawler. ".repeat(200);
const bytes = new TextEncoder().encode(text);

function source(chunks: Uint8Array[]): Readable {
  return Readable.from(
    chunks.map((c) => Buffer.from(c)),
    { objectMode: false },
  );
}

/** Splits a buffer into pieces of `size` so decoders see a real stream, not one chunk. */
function pieces(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}

const encodings: Array<[string, string, Uint8Array]> = [
  ["gzip", "gzip", gzipSync(bytes)],
  ["x-gzip", "x-gzip", gzipSync(bytes)],
  ["zlib-wrapped deflate", "deflate", deflateSync(bytes)],
  ["raw deflate", "deflate", deflateRawSync(bytes)],
  ["brotli", "br", brotliCompressSync(bytes)],
  ["an upper-case encoding name", " GZIP ", gzipSync(bytes)],
];

test.each(encodings)("body - decodes %s", async (_name, encoding, encoded) => {
  const result = await readBody(source(pieces(encoded, 1)), encoding, 1 << 20);
  expect(new TextDecoder().decode(result.body)).toBe(text);
  expect(result.truncated).toBe(false);
  expect(result.unsupportedEncoding).toBe(false);
});

/** Bytes that barely compress, so the encoded body passes the one-shot limit and is streamed. */
function noise(length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = 0x2545f491;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
const large = noise(300_000);
const largeEncodings: Array<[string, string, Uint8Array]> = [
  ["gzip", "gzip", gzipSync(large)],
  ["zlib-wrapped deflate", "deflate", deflateSync(large)],
  ["raw deflate", "deflate", deflateRawSync(large)],
  ["brotli", "br", brotliCompressSync(large, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })],
];

test.each(largeEncodings)("body - streams a %s body too large to decode in one call", async (_name, encoding, encoded) => {
  expect(encoded.length).toBeGreaterThan(64 * 1024);
  const result = await readBody(source(pieces(encoded, 16 * 1024)), encoding, 1 << 20);
  expect(result.body).toEqual(large);
  expect(result.truncated).toBe(false);
});

test("body - cuts a streamed body at the cap", async () => {
  const result = await readBody(source(pieces(gzipSync(large), 16 * 1024)), "gzip", 100_000);
  expect(result.body).toEqual(large.subarray(0, 100_000));
  expect(result.truncated).toBe(true);
});

test("body - rejects a long body that does not decode as a bad encoding", async () => {
  await expect(readBody(source(pieces(large, 16 * 1024)), "gzip", 1 << 20)).rejects.toBeInstanceOf(BadEncodingError);
});

test("body - returns an identity body as it came", async () => {
  const result = await readBody(source(pieces(bytes, 100)), undefined, 1 << 20);
  expect(result.body).toEqual(bytes);
  expect(result.truncated).toBe(false);
});

test("body - cuts an identity body at the cap and stops reading", async () => {
  let pulled = 0;
  async function* endless() {
    for (;;) {
      pulled++;
      yield Buffer.alloc(1000, 97);
    }
  }
  const stream = Readable.from(endless(), { objectMode: false });
  const result = await readBody(stream, "identity", 2500);
  expect(result.body.length).toBe(2500);
  expect(result.truncated).toBe(true);
  expect(pulled).toBeLessThan(20);
  expect(stream.destroyed).toBe(true);
});

test("body - a body exactly at the cap is not truncated", async () => {
  const result = await readBody(source([bytes]), undefined, bytes.length);
  expect(result.body.length).toBe(bytes.length);
  expect(result.truncated).toBe(false);
});

test("body - stops a gzip bomb at the cap after pulling only a few compressed chunks", async () => {
  // Each member inflates 8 MiB of zeros; gunzip reads concatenated members as one stream.
  const member = gzipSync(Buffer.alloc(8 << 20));
  let pulled = 0;
  async function* bomb() {
    for (let i = 0; i < 1000; i++) {
      pulled++;
      yield member;
    }
  } // 8 GiB decoded
  const stream = Readable.from(bomb(), { objectMode: false });
  const rssBefore = process.memoryUsage().rss;
  const result = await readBody(stream, "gzip", 1 << 20);
  expect(result.body.length).toBe(1 << 20);
  expect(result.truncated).toBe(true);
  expect(pulled).toBeLessThan(50); // stream buffers hold a few ~8 KB members; 1000 would mean no stop
  expect(stream.destroyed).toBe(true);
  expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 << 20);
});

test("body - stops a brotli bomb at the cap", async () => {
  const bomb = brotliCompressSync(Buffer.alloc(64 << 20), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  const result = await readBody(source(pieces(bomb, 256)), "br", 100_000);
  expect(result.body.length).toBe(100_000);
  expect(result.truncated).toBe(true);
});

test("body - caps the encoded bytes too, so a stream that decodes to nothing cannot run on", async () => {
  // Empty stored deflate blocks decode to zero bytes each, forever.
  const emptyBlock = Uint8Array.of(0x00, 0x00, 0x00, 0xff, 0xff);
  let pulled = 0;
  async function* nothing() {
    for (;;) {
      pulled++;
      yield Buffer.concat(Array(200).fill(emptyBlock));
    }
  }
  const stream = Readable.from(nothing(), { objectMode: false });
  const result = await readBody(stream, "deflate", 10_000);
  expect(result.body.length).toBe(0);
  expect(result.truncated).toBe(true);
  expect(pulled).toBeLessThan(100); // 1,000 bytes each; the encoded cap is the decoded cap plus slack
});

test("body - keeps an unknown encoding raw and flags it", async () => {
  const result = await readBody(source([bytes]), "zstd", 1 << 20);
  expect(result.body).toEqual(bytes);
  expect(result.unsupportedEncoding).toBe(true);
});

test("body - keeps stacked encodings raw and flags them", async () => {
  const result = await readBody(source([bytes]), "gzip, br", 1 << 20);
  expect(result.unsupportedEncoding).toBe(true);
});

test("body - rejects bytes that do not decode as a bad encoding", async () => {
  const garbage = new TextEncoder().encode("this is not gzip at all");
  await expect(readBody(source([garbage]), "gzip", 1 << 20)).rejects.toBeInstanceOf(BadEncodingError);
});

test("body - keeps what a gzip stream cut short decoded", async () => {
  const encoded = gzipSync(bytes);
  const cut = encoded.subarray(0, encoded.length - 20);
  const result = await readBody(source([cut]), "gzip", 1 << 20);
  expect(result.body.length).toBeGreaterThan(0);
  expect(text.startsWith(new TextDecoder().decode(result.body))).toBe(true);
});

test("body - returns an empty body for an empty gzip-labelled response", async () => {
  const result = await readBody(source([]), "gzip", 1 << 20);
  expect(result.body.length).toBe(0);
  expect(result.truncated).toBe(false);
});

test("body - passes on the source's own error", async () => {
  async function* failing() {
    yield Buffer.from(gzipSync(bytes).subarray(0, 10));
    throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
  }
  const stream = Readable.from(failing(), { objectMode: false });
  await expect(readBody(stream, "gzip", 1 << 20)).rejects.toMatchObject({ code: "ECONNRESET" });
});
