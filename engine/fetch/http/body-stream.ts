/**
 * Streaming decompression for bodies read as a stream rather than collected (sitemaps, up to 50 MB
 * uncompressed): the chunks of a source, decoded by one of decoders.ts's streaming zlib decoders, handed
 * on as they come. Nothing is gathered here: the consumer counts what it takes and stops when it has
 * enough, which ends the decoder and the source with it. Encoded bytes are capped (`maxEncodedBytes`), so
 * a body that decodes to next to nothing (empty deflate blocks, forever) cannot run on; `capped()` says
 * whether that cut happened. Used twice for a gzip sitemap: once for the Content-Encoding, once for the
 * gzip file itself.
 */
import { pipeline, Readable } from "node:stream";
import { DECODERS, type Decoder } from "./decoders.ts";

export interface DecodedStream {
  chunks: AsyncIterable<Uint8Array>;
  /** True once the encoded input was cut at `maxEncodedBytes`. */
  capped(): boolean;
  /** True once the source was read to its end. */
  sourceEnded(): boolean;
}

/** The source decoded by `decoder`; its errors (bad data) surface from the iteration as zlib's errors. */
export function decodeStream(source: AsyncIterable<Uint8Array>, decoder: Decoder, maxEncodedBytes: number): DecodedStream {
  let cut = false;
  let ended = false;
  const input = source[Symbol.asyncIterator]();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    // The first bytes decide between zlib-wrapped and raw deflate: gather at least two.
    const head: Uint8Array[] = [];
    let headBytes = 0;
    while (headBytes < 2) {
      const next = await input.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.length;
    }
    if (headBytes === 0) return;
    const start = head.length === 1 ? head[0]! : Buffer.concat(head);
    let wire = start.length;
    async function* feed(): AsyncGenerator<Uint8Array> {
      yield start;
      if (ended) return;
      for (;;) {
        const next = await input.next();
        if (next.done) {
          ended = true;
          return;
        }
        wire += next.value.length;
        if (wire > maxEncodedBytes) {
          cut = true;
          return;
        }
        yield next.value;
      }
    }
    const decoding = decoder.stream(start);
    const fed = Readable.from(feed(), { objectMode: false });
    // Errors surface through the decoder's iterator; the callback only keeps pipeline quiet.
    pipeline(fed, decoding, () => {});
    try {
      for await (const chunk of decoding as AsyncIterable<Uint8Array>) yield chunk;
    } finally {
      decoding.destroy();
      fed.destroy();
    }
  }
  return { chunks: chunks(), capped: () => cut, sourceEnded: () => ended };
}

/** The source as is, remembering whether it was read to its end. */
export function plainStream(source: AsyncIterable<Uint8Array>): DecodedStream {
  let ended = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) yield chunk;
    ended = true;
  }
  return { chunks: chunks(), capped: () => false, sourceEnded: () => ended };
}

/** A gzip file's content, decompressed as a stream (a `sitemap.xml.gz` served as it is). */
export function gunzipStream(source: AsyncIterable<Uint8Array>, maxEncodedBytes: number): DecodedStream {
  return decodeStream(source, DECODERS.gzip!, maxEncodedBytes);
}
