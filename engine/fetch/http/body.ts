/**
 * Capped body reading: turns a response body stream into bytes, undoing its Content-Encoding
 * (see decoders.ts). The cap counts decoded bytes, and decoding stops the moment it is reached: the
 * streaming decoder is pulled chunk by chunk and destroyed along with the source, so a gzip bomb
 * costs at most the cap plus one decoder chunk of memory, never its full decompressed size. Encoded
 * bytes are capped too, so a body that decodes to nothing (empty deflate blocks, forever) cannot run
 * on. A small body that arrives whole is decoded in one capped call instead, which is much cheaper.
 * Unknown encodings (zstd, stacked encodings) are kept as received and flagged.
 */
import { pipeline, Readable } from "node:stream";
import { DECODERS, isDecodeError, isOutputTooLarge, type Decoder } from "./decoders.ts";
import { BadEncodingError } from "./errors.ts";

export interface BodyResult {
  body: Uint8Array;
  truncated: boolean;
  /** The encoding was not one we decode; `body` is still encoded. */
  unsupportedEncoding: boolean;
}

/** A body source: an async iterable of byte chunks that can be destroyed to stop the transfer. */
export type BodySource = AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };

/** Encoded bodies up to this size that arrive whole are decoded in one call. */
const ONE_SHOT_LIMIT = 64 * 1024;

/**
 * Reads `source` to its end or to `maxBytes` decoded bytes, decoding `contentEncoding` when it is
 * one we know. Rejects with {@link BadEncodingError} when the bytes do not decode, or with the
 * source's own error (abort, reset) when the transfer fails.
 */
export async function readBody(source: BodySource, contentEncoding: string | undefined, maxBytes: number): Promise<BodyResult> {
  const encoding = normalizeEncoding(contentEncoding);
  if (encoding === undefined) return { ...(await readRaw(source, maxBytes)), unsupportedEncoding: false };
  const decoder = DECODERS[encoding];
  if (!decoder) return { ...(await readRaw(source, maxBytes)), unsupportedEncoding: true };
  try {
    return { ...(await readDecoded(source, decoder, maxBytes)), unsupportedEncoding: false };
  } catch (error) {
    // A body left half-read would hold its connection; let it go.
    source.destroy();
    throw isDecodeError(error) ? new BadEncodingError(encoding, error) : error;
  }
}

/** The encoding to undo, lower-cased; `undefined` for none or identity. */
export function normalizeEncoding(header: string | undefined): string | undefined {
  const value = header?.trim().toLowerCase();
  return !value || value === "identity" ? undefined : value;
}

type Capped = Omit<BodyResult, "unsupportedEncoding">;

async function readRaw(source: BodySource, maxBytes: number): Promise<Capped> {
  const collector = new Collector(maxBytes);
  try {
    for await (const chunk of source) {
      if (!collector.add(chunk)) break;
    }
  } finally {
    if (collector.truncated) source.destroy();
  }
  return collector.result();
}

async function readDecoded(source: BodySource, decoder: Decoder, maxBytes: number): Promise<Capped> {
  const input = source[Symbol.asyncIterator]();
  // Gather the start of the body: enough to sniff deflate, and all of it when it is small.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let inputDone = false;
  while (headBytes < Math.min(ONE_SHOT_LIMIT, maxBytes) || headBytes < 2) {
    const next = await input.next();
    if (next.done) {
      inputDone = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
  }
  if (headBytes === 0) return { body: new Uint8Array(0), truncated: false }; // e.g. a 304 or an empty 200
  const start = concat(head, headBytes);

  if (inputDone) {
    try {
      return { body: decoder.once(start, maxBytes), truncated: false };
    } catch (error) {
      if (!isOutputTooLarge(error)) throw error;
      // Decodes past the cap: the streaming path below stops exactly at it.
    }
  }
  return streamDecoded(source, input, start, inputDone, decoder, maxBytes);
}

async function streamDecoded(
  source: BodySource,
  input: AsyncIterator<Uint8Array>,
  start: Uint8Array,
  inputDone: boolean,
  decoder: Decoder,
  maxBytes: number,
): Promise<Capped> {
  // Compressed data never legitimately outgrows its decoded form by more than a fraction of a
  // percent, so this slack lets the decoded cap decide for real content and still stops a body that
  // decodes to next to nothing.
  const wireCap = maxBytes + Math.floor(maxBytes / 16) + ONE_SHOT_LIMIT;
  let wireBytes = start.length;
  let wireCapped = false;
  async function* feed(): AsyncGenerator<Uint8Array> {
    yield start;
    if (inputDone) return;
    for (;;) {
      const next = await input.next();
      if (next.done) return;
      wireBytes += next.value.length;
      if (wireBytes > wireCap) {
        wireCapped = true;
        return;
      }
      yield next.value;
    }
  }

  const decoding = decoder.stream(start);
  const fed = Readable.from(feed(), { objectMode: false });
  // Errors surface through the decoder's iterator below; the callback only keeps pipeline quiet.
  pipeline(fed, decoding, () => {});
  const collector = new Collector(maxBytes);
  try {
    for await (const chunk of decoding as AsyncIterable<Uint8Array>) {
      if (!collector.add(chunk)) break;
    }
  } finally {
    decoding.destroy();
    fed.destroy();
    if (collector.truncated || wireCapped) source.destroy();
  }
  const result = collector.result();
  return { body: result.body, truncated: result.truncated || wireCapped };
}

/** Gathers chunks up to a byte cap; `add` returns false once the cap is passed. */
class Collector {
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  truncated = false;

  constructor(readonly maxBytes: number) {}

  add(chunk: Uint8Array): boolean {
    const room = this.maxBytes - this.#bytes;
    if (chunk.length > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#bytes += Math.max(room, 0);
      this.truncated = true;
      return false;
    }
    // Exactly at the cap is not yet truncation: only a further byte proves there was more.
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    return true;
  }

  result(): { body: Uint8Array; truncated: boolean } {
    return { body: concat(this.#chunks, this.#bytes), truncated: this.truncated };
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
