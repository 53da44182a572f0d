/**
 * crawler.fetch.v1.DiscoveredLinks bytes -> DiscoveredUrl[], read by hand: the same result as the generated
 * decoder followed by discoveredUrlFromProto, and the same CodecError for every input either refuses
 * (discovered-links.test.ts checks both on random and broken messages). Like the generated code it skips
 * unknown fields and fields of an unexpected wire type, lets a later scalar field override an earlier one
 * (and a later sitemap reference replace an earlier one), stops a message at a zero or end-group tag, and
 * reports a malformed message before any bad value in it: a bad value (a grant, lastmod, priority or kind) is
 * kept and thrown only once the whole message has been read.
 *
 * Why not the generated code: a frontier node reads about 1.45 of these per page fetched, each with some 30
 * links of one host and one source page, and decoding them was 6.6 % of its JS thread, mostly in building
 * strings (an Array of char codes, then String.fromCharCode.apply) for the same host and source URL again for
 * every link. Here a host or source URL whose bytes equal the previous link's is that link's string, and
 * other strings come from one native call each. bench/codec.bench.ts has the figures.
 */
import { Buffer } from "node:buffer";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import type { SitemapRef } from "../gen/crawler/fetch/v1/fetch.ts";
import { CodecError } from "./errors.ts";
import { decodeOrThrow } from "./fetch-task.ts";
import { fromInt64 } from "./numbers.ts";
import { sitemapRefFromProto } from "./sitemap.ts";
import { WireReader } from "./wire.ts";

export function decodeDiscoveredLinksWire(bytes: Uint8Array): { partition: number; urls: DiscoveredUrl[] } {
  const d = new LinksDecoder(bytes);
  decodeOrThrow("DiscoveredLinks", () => d.links());
  if (d.failure) throw d.failure;
  return { partition: d.partition, urls: d.urls };
}

/** The last string read for a field: a field whose bytes equal these is the same string. */
interface LastString {
  start: number;
  len: number;
  value: string;
}

class LinksDecoder {
  partition = 0;
  readonly urls: DiscoveredUrl[] = [];
  /** The first bad value, thrown once the message has been read whole. */
  failure: CodecError | undefined;
  private readonly r: WireReader;
  /** The same bytes, for Buffer's UTF-8 decoding (see `text`). */
  private readonly b: Buffer;
  private readonly lastHost: LastString = { start: 0, len: 0, value: "" };
  private readonly lastSource: LastString = { start: 0, len: 0, value: "" };

  constructor(bytes: Uint8Array) {
    this.r = new WireReader(bytes);
    this.b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  links(): void {
    const r = this.r;
    while (r.pos < r.len) {
      const tag = r.uint32();
      switch (tag) {
        case 8:
          this.partition = r.uint32();
          continue;
        case 18: {
          const n = r.uint32();
          this.url(r.pos + n);
          continue;
        }
      }
      if ((tag & 7) === 4 || tag === 0) break;
      r.skip(tag & 7);
    }
  }

  private url(end: number): void {
    const r = this.r;
    let url = "";
    let host = "";
    let depth = 0;
    let sourceUrl = "";
    let redirectHops = 0;
    let isSeed = false;
    let sitemap: SitemapRef | undefined;
    let lastmodLo = 0;
    let lastmodHi = 0;
    let priority = 0;
    let hasPriority = false;
    let kind = 0;
    let nearDuplicate = false;
    let job = 0;
    let foundByRender = false;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag) {
        case 10:
          url = this.text(r.delimited(), r.pos);
          continue;
        case 18:
          host = this.repeated(this.lastHost);
          continue;
        case 24:
          depth = r.uint32();
          continue;
        case 34:
          sourceUrl = this.repeated(this.lastSource);
          continue;
        case 40:
          redirectHops = r.uint32();
          continue;
        case 48:
          isSeed = r.bool();
          continue;
        case 58: {
          const n = r.uint32();
          sitemap = this.sitemap(r.pos + n);
          continue;
        }
        case 64:
          r.varint64();
          lastmodLo = r.lo;
          lastmodHi = r.hi;
          continue;
        case 73:
          priority = r.double();
          continue;
        case 80:
          hasPriority = r.bool();
          continue;
        case 88:
          kind = r.uint32() | 0; // an int32 enum
          continue;
        case 96:
          nearDuplicate = r.bool();
          continue;
        case 104:
          job = r.uint32();
          continue;
        case 400:
          foundByRender = r.bool();
          continue;
      }
      if ((tag & 7) === 4 || tag === 0) break;
      r.skip(tag & 7);
    }
    if (this.failure) return;
    // From here as discoveredUrlFromProto: the same keys in the same order, the same checks in the same order.
    const u: DiscoveredUrl = { url, host, depth, redirectHops };
    if (sourceUrl !== "") u.sourceUrl = sourceUrl;
    if (isSeed) u.isSeed = true;
    try {
      if (sitemap) u.sitemap = sitemapRefFromProto(sitemap);
      if (lastmodLo !== 0 || lastmodHi !== 0) u.lastmod = lastmodOf(lastmodLo, lastmodHi);
    } catch (err) {
      this.failure = err as CodecError;
      return;
    }
    if (hasPriority) {
      if (!(priority >= 0 && priority <= 1)) {
        this.failure = new CodecError(`sitemap priority ${priority} is not in 0..1`);
        return;
      }
      u.sitemapPriority = priority;
    }
    if (nearDuplicate) u.foundOnNearDuplicate = true;
    if (job > 0) u.job = job;
    if (foundByRender) u.foundByRender = true;
    if (kind === 2) u.kind = "media";
    else if (kind !== 0 && kind !== 1) {
      this.failure = new CodecError(`discovered URL kind ${kind} is not a known kind`);
      return;
    }
    this.urls.push(u);
  }

  /** A SitemapRef message, as the generated code reads it (the grants are checked later, by the caller). */
  private sitemap(end: number): SitemapRef {
    const r = this.r;
    const grants: string[] = [];
    let fromIndex = false;
    let feed = false;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag) {
        case 10:
          grants.push(this.text(r.delimited(), r.pos));
          continue;
        case 16:
          fromIndex = r.bool();
          continue;
        case 480: // feed = 60, varint
          feed = r.bool();
          continue;
      }
      if ((tag & 7) === 4 || tag === 0) break;
      r.skip(tag & 7);
    }
    return { grants, fromIndex, feed };
  }

  /**
   * A string field that most links repeat (host, source URL): the previous link's string when the bytes
   * match. Comparing the bytes costs less than decoding them: on the page batch of the bench, 3.7 against 4.9
   * µs per message on Bun, 3.8 against 5.8 on Deno; and the 30 links hold one host string, not 30.
   */
  private repeated(last: LastString): string {
    const r = this.r;
    const start = r.delimited();
    const len = r.pos - start;
    if (len === last.len && sameBytes(r.buf, start, last.start, len)) return last.value;
    last.start = start;
    last.len = len;
    last.value = this.text(start, r.pos);
    return last.value;
  }

  /**
   * UTF-8 (ASCII too) as the generated decoders read it (TextDecoder's: invalid sequences become U+FFFD, a
   * leading U+FEFF is kept; the test holds the two to the same strings). Buffer's decoding, not TextDecoder's
   * or @bufbuild/protobuf's (an Array of char codes and String.fromCharCode.apply, up to 32 bytes): per
   * string of 12-60 bytes it measured 40-47 ns on Bun against 73-167 for TextDecoder and 96-255 for the char
   * codes; on Deno 58-70 against 109-117 and 40-139.
   */
  private text(start: number, end: number): string {
    return this.b.toString("utf8", start, end);
  }
}

function sameBytes(buf: Uint8Array, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/**
 * An int64 from its two words, as a number; past 2^53 the generated path's error (fromInt64's, with the
 * bigint). The sum is exact whenever it is safe, and rounds to an unsafe number whenever the value is not.
 */
function lastmodOf(lo: number, hi: number): number {
  const n = hi * 0x1_0000_0000 + (lo >>> 0);
  if (Number.isSafeInteger(n)) return n;
  return fromInt64("lastmodMs", BigInt(hi) * 0x1_0000_0000n + BigInt(lo >>> 0));
}
