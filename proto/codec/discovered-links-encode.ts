/**
 * DiscoveredUrl[] -> crawler.fetch.v1.DiscoveredLinks bytes, written by hand: the same bytes as the generated
 * encoder (discovered-links.test.ts checks them against it on random batches), the same CodecErrors for values
 * the wire cannot carry (thrown by the same checks, in the same order: partition, then each URL's depth,
 * redirect hops and lastmod).
 *
 * Why not the generated code: a fetch node sends about 1.45 of these per page, each with some 30 links of one
 * host and one source page, and encoding them was 3.2 % of its JS thread, in BinaryWriter's growth
 * (`ensureCapacity`, a fork and join per link) and in the UTF-8 encoding of the same host and source URL
 * again for every link. Here the exact size is computed first and everything is written into one
 * Uint8Array, and a host or source URL equal to the previous link's is copied from where it was written.
 * bench/codec.bench.ts has the figures.
 *
 * Strings are taken to be ASCII (normalized URLs and hosts are: non-ASCII is percent-encoded, hosts are
 * punycode) while sizing, so that each string is scanned once, when it is written; the first non-ASCII
 * character found sends the whole message through a second, exact pass.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { toSafeInteger, toUint32 } from "./numbers.ts";
import { putUtf8, putVarint32, putVarint64, utf8Length, varint32Size, varint64Size } from "./wire.ts";

/** Per URL, what sizing found and writing needs again: its message size and its three strings' byte lengths. */
const SLOTS = 4;

export function encodeDiscoveredLinksWire(partition: number, urls: readonly DiscoveredUrl[]): Uint8Array {
  const p = toUint32("partition", partition);
  const sizes: number[] = new Array(urls.length * SLOTS);
  const total = sizeLinks(p, urls, sizes, false);
  return writeLinks(p, urls, sizes, total, false) ?? writeLinks(p, urls, sizes, sizeLinks(p, urls, sizes, true), true)!;
}

/** Bytes of the whole message; fills `sizes`. `exact`: real UTF-8 lengths, else string lengths (ASCII). */
function sizeLinks(partition: number, urls: readonly DiscoveredUrl[], sizes: number[], exact: boolean): number {
  let total = partition === 0 ? 0 : 1 + varint32Size(partition);
  for (let i = 0; i < urls.length; i++) {
    const u = urls[i]!;
    const depth = toUint32("depth", u.depth);
    const hops = toUint32("redirectHops", u.redirectHops);
    const lastmod = u.lastmod === undefined ? 0 : toSafeInteger("lastmod", u.lastmod);
    const sourceUrl = u.sourceUrl ?? "";
    const urlLen = exact ? utf8Length(u.url) : u.url.length;
    const hostLen = exact ? utf8Length(u.host) : u.host.length;
    const sourceLen = exact ? utf8Length(sourceUrl) : sourceUrl.length;
    let n = 0;
    if (urlLen !== 0) n += 1 + varint32Size(urlLen) + urlLen;
    if (hostLen !== 0) n += 1 + varint32Size(hostLen) + hostLen;
    if (depth !== 0) n += 1 + varint32Size(depth);
    if (sourceLen !== 0) n += 1 + varint32Size(sourceLen) + sourceLen;
    if (hops !== 0) n += 1 + varint32Size(hops);
    if ((u.isSeed ?? false) !== false) n += 2;
    if (u.sitemap) {
      const s = sitemapSize(u.sitemap.grants, u.sitemap.fromIndex ?? false, u.sitemap.feed ?? false, exact);
      n += 1 + varint32Size(s) + s;
    }
    if (lastmod !== 0) n += 1 + varint64Size(lastmod);
    if ((u.sitemapPriority ?? 0) !== 0) n += 9;
    if (u.sitemapPriority !== undefined) n += 2;
    if (u.kind === "media") n += 2;
    if ((u.foundOnNearDuplicate ?? false) !== false) n += 2;
    const job = toUint32("job", u.job ?? 0);
    if (job !== 0) n += 1 + varint32Size(job);
    if ((u.foundByRender ?? false) !== false) n += 3;
    const at = i * SLOTS;
    sizes[at] = n;
    sizes[at + 1] = urlLen;
    sizes[at + 2] = hostLen;
    sizes[at + 3] = sourceLen;
    total += 1 + varint32Size(n) + n;
  }
  return total;
}

function sitemapSize(grants: readonly string[], fromIndex: boolean, feed: boolean, exact: boolean): number {
  let n = (fromIndex !== false ? 2 : 0) + (feed !== false ? 3 : 0);
  for (const g of grants) {
    const len = exact ? utf8Length(g) : g.length;
    n += 1 + varint32Size(len) + len;
  }
  return n;
}

/** The message, or undefined when a string sized as ASCII was not (then the caller sizes again, exactly). */
function writeLinks(
  partition: number,
  urls: readonly DiscoveredUrl[],
  sizes: number[],
  total: number,
  exact: boolean,
): Uint8Array | undefined {
  const out = new Uint8Array(total);
  let view: DataView | undefined;
  let pos = 0;
  if (partition !== 0) {
    out[pos++] = 8;
    pos = putVarint32(out, pos, partition);
  }
  // Where the previous link's host and source URL were written (their bytes, without tag and length): copying
  // them measured 3.0 against 3.7-4.1 µs per page batch of the bench on Bun (encoding them again), 5.0 against
  // 6.9 on Deno; a byte loop instead of copyWithin was even on Bun, 6.2 on Deno.
  let lastHost = "";
  let lastHostAt = 0;
  let lastSource = "";
  let lastSourceAt = 0;
  for (let i = 0; i < urls.length; i++) {
    const u = urls[i]!;
    const at = i * SLOTS;
    out[pos++] = 18;
    pos = putVarint32(out, pos, sizes[at]!);
    const urlLen = sizes[at + 1]!;
    if (urlLen !== 0) {
      out[pos++] = 10;
      pos = putVarint32(out, pos, urlLen);
      pos = putString(out, pos, u.url, urlLen);
      if (pos < 0) return undefined;
    }
    const hostLen = sizes[at + 2]!;
    if (hostLen !== 0) {
      out[pos++] = 18;
      pos = putVarint32(out, pos, hostLen);
      if (u.host === lastHost) {
        out.copyWithin(pos, lastHostAt, lastHostAt + hostLen);
        pos += hostLen;
      } else {
        lastHost = u.host;
        lastHostAt = pos;
        pos = putString(out, pos, u.host, hostLen);
        if (pos < 0) return undefined;
      }
    }
    const depth = u.depth;
    if (depth !== 0) {
      out[pos++] = 24;
      pos = putVarint32(out, pos, depth);
    }
    const sourceLen = sizes[at + 3]!;
    if (sourceLen !== 0) {
      const sourceUrl = u.sourceUrl!;
      out[pos++] = 34;
      pos = putVarint32(out, pos, sourceLen);
      if (sourceUrl === lastSource) {
        out.copyWithin(pos, lastSourceAt, lastSourceAt + sourceLen);
        pos += sourceLen;
      } else {
        lastSource = sourceUrl;
        lastSourceAt = pos;
        pos = putString(out, pos, sourceUrl, sourceLen);
        if (pos < 0) return undefined;
      }
    }
    if (u.redirectHops !== 0) {
      out[pos++] = 40;
      pos = putVarint32(out, pos, u.redirectHops);
    }
    const isSeed = u.isSeed ?? false;
    if (isSeed !== false) {
      out[pos++] = 48;
      out[pos++] = isSeed ? 1 : 0;
    }
    if (u.sitemap) {
      const fromIndex = u.sitemap.fromIndex ?? false;
      const feed = u.sitemap.feed ?? false;
      out[pos++] = 58;
      pos = putVarint32(out, pos, sitemapSize(u.sitemap.grants, fromIndex, feed, exact));
      for (const g of u.sitemap.grants) {
        const len = exact ? utf8Length(g) : g.length;
        out[pos++] = 10;
        pos = putVarint32(out, pos, len);
        pos = putString(out, pos, g, len);
        if (pos < 0) return undefined;
      }
      if (fromIndex !== false) {
        out[pos++] = 16;
        out[pos++] = fromIndex ? 1 : 0;
      }
      if (feed !== false) {
        // field 60, varint: tag 480 as two varint bytes
        out[pos++] = 0xe0;
        out[pos++] = 0x03;
        out[pos++] = 1;
      }
    }
    if (u.lastmod !== undefined) {
      const lastmod = Math.round(u.lastmod);
      if (lastmod !== 0) {
        out[pos++] = 64;
        pos = putVarint64(out, pos, lastmod);
      }
    }
    const priority = u.sitemapPriority ?? 0;
    if (priority !== 0) {
      out[pos++] = 73;
      view ??= new DataView(out.buffer);
      view.setFloat64(pos, priority, true);
      pos += 8;
    }
    if (u.sitemapPriority !== undefined) {
      out[pos++] = 80;
      out[pos++] = 1;
    }
    if (u.kind === "media") {
      out[pos++] = 88;
      out[pos++] = 2;
    }
    const nearDuplicate = u.foundOnNearDuplicate ?? false;
    if (nearDuplicate !== false) {
      out[pos++] = 96;
      out[pos++] = nearDuplicate ? 1 : 0;
    }
    const job = u.job ?? 0;
    if (job !== 0) {
      out[pos++] = 104;
      pos = putVarint32(out, pos, job);
    }
    if ((u.foundByRender ?? false) !== false) {
      // Field 50, varint: the tag 400 takes two bytes.
      out[pos++] = 0x90;
      out[pos++] = 0x03;
      out[pos++] = 1;
    }
  }
  return out;
}

/**
 * Writes `s` as its `len` bytes; -1 when `len` was taken as `s.length` but a character is not ASCII. A
 * char-code loop, not TextEncoder.encodeInto: on URLs of 30-60 characters it measured 34 against 50 ns per
 * string on Bun, 49 against 150 ns on Deno (encodeInto needs a subarray and returns an object).
 */
function putString(out: Uint8Array, pos: number, s: string, len: number): number {
  // An exact length equal to the string's means ASCII: every other character takes more bytes than units.
  if (len !== s.length) return putUtf8(out, pos, s);
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -1;
    out[pos++] = c;
  }
  return pos;
}
