/**
 * Splits page text into words and hashes each one, the first step of SimHash. A word is a maximal run of
 * Unicode letters, digits and combining marks, lower-cased with `toLowerCase()`; every other character
 * (spaces, punctuation, symbols, emoji) separates words, so markup-free text differing only in case,
 * spacing or punctuation yields the same words. Han ideographs and kana are one word per character,
 * because those scripts do not put spaces between words and a whole sentence would otherwise be a single
 * token. (Thai and other unspaced scripts still come out as long runs: a known limit.) Each word is
 * hashed to 32 bits (FNV-1a over its UTF-16 code units, then the murmur3 finalizer) without building
 * substrings. Frozen with `simhash64`: stored fingerprints depend on it.
 */
import { fmix32 } from "../hash/index.ts";

const SEPARATOR = 1;
const WORD = 2;
const STANDALONE = 3;

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const STANDALONE_CHAR = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;

/** Class of each BMP code unit, filled on first sight: regex tests are too slow to run per character. */
let bmpClass: Uint8Array | undefined;

function classify(ch: string): number {
  if (STANDALONE_CHAR.test(ch)) return STANDALONE;
  return WORD_CHAR.test(ch) ? WORD : SEPARATOR;
}

/** Class of a BMP code unit at or above 0x80 (ASCII has ASCII_CLASS). */
function bmpClassOf(c: number): number {
  const table = (bmpClass ??= new Uint8Array(0x10000));
  let k = table[c]!;
  if (k === 0) {
    // Lone surrogates separate; valid pairs are handled by the caller.
    k = c >= 0xd800 && c <= 0xdfff ? SEPARATOR : classify(String.fromCharCode(c));
    table[c] = k;
  }
  return k;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Class of each ASCII code unit as found (before lower-casing): upper-case letters are words, folded. */
const UPPER = 4;
const ASCII_CLASS = new Uint8Array(0x80).fill(SEPARATOR);
for (let c = 0x30; c <= 0x39; c++) ASCII_CLASS[c] = WORD;
for (let c = 0x61; c <= 0x7a; c++) ASCII_CLASS[c] = WORD;
for (let c = 0x41; c <= 0x5a; c++) ASCII_CLASS[c] = UPPER;
/** Each ASCII code unit as its word hashes it (A-Z folded to a-z), or 0 for a separator. */
const ASCII_FOLDED = new Uint8Array(0x80);
for (let c = 0; c < 0x80; c++) ASCII_FOLDED[c] = ASCII_CLASS[c] === SEPARATOR ? 0 : ASCII_CLASS[c] === UPPER ? c | 0x20 : c;

/** ASCII_FOLDED over every byte value, NON_ASCII for the bytes at or above 0x80 (where the ASCII prefix ends). */
const NON_ASCII = 0x100;
const BYTE_FOLDED = new Uint16Array(0x100).fill(NON_ASCII);
BYTE_FOLDED.set(ASCII_FOLDED);

const utf8 = new TextEncoder();
/** The text's UTF-8 bytes, reused from call to call (grown as needed; each thread has its own). */
let asciiScratch = new Uint8Array(0);

/**
 * Hashes of the words of `text`, in order. The loops keep their state in locals, with no closure over them:
 * a captured variable lives in a heap context, which made every character's update several times slower.
 * The text is read as found while it is ASCII, folding A-Z on the way; only from its first other character
 * on is the lower-cased copy read (`toLowerCase` leaves ASCII as ASCII, so both agree on that prefix).
 * Most pages' text is ASCII throughout and is never copied.
 */
export function wordHashes(text: string): Uint32Array {
  let n = text.length;
  // Room for one word per five characters: prose averages one per six, so a page's text rarely grows it.
  let out = new Uint32Array(Math.max(16, Math.ceil(n / 5)));
  let count = 0;
  let h = FNV_OFFSET;
  let len = 0; // code units in the current word
  let i = 0;
  // The ASCII prefix is read as UTF-8 bytes, where each ASCII character is its own byte at its own index:
  // a typed-array load per character instead of `charCodeAt` (measured: 84 -> 64 us for a 24,000-character
  // page text). The first byte at or above 0x80 is where the first other character is; past `written`
  // (scratch too small for the rest) the string is read as before.
  if (asciiScratch.length < n) asciiScratch = new Uint8Array(Math.max(n, 2 * asciiScratch.length));
  const bytes = asciiScratch;
  const written = utf8.encodeInto(text, bytes).written;
  const limit = Math.min(n, written);
  for (; i < limit; i++) {
    const f = BYTE_FOLDED[bytes[i]!]!;
    if ((f - 1) >>> 0 < 0x7f) {
      // A letter or digit, folded (1..127): one test on the common path.
      h = Math.imul(h ^ f, FNV_PRIME);
      len++;
    } else if (f === NON_ASCII) {
      break;
    } else if (len > 0) {
      if (count === out.length) out = grown(out);
      out[count++] = fmix32(h ^ len);
      h = FNV_OFFSET;
      len = 0;
    }
  }
  if (i < n) {
    const s = text.toLowerCase();
    n = s.length;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      let k: number;
      let units = 1;
      if (c < 0x80) {
        // Lower-cased already: the table gives WORD or SEPARATOR here, never UPPER.
        k = ASCII_CLASS[c]!;
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          units = 2;
          k = classify(s.slice(i, i + 2));
        } else {
          k = SEPARATOR;
        }
      } else {
        k = bmpClassOf(c);
      }
      if (k === WORD) {
        h = Math.imul(h ^ c, FNV_PRIME);
        if (units === 2) h = Math.imul(h ^ s.charCodeAt(i + 1), FNV_PRIME);
        len += units;
      } else {
        if (len > 0) {
          if (count === out.length) out = grown(out);
          out[count++] = fmix32(h ^ len);
          h = FNV_OFFSET;
          len = 0;
        }
        if (k === STANDALONE) {
          h = Math.imul(h ^ c, FNV_PRIME);
          if (units === 2) h = Math.imul(h ^ s.charCodeAt(i + 1), FNV_PRIME);
          if (count === out.length) out = grown(out);
          out[count++] = fmix32(h ^ units);
          h = FNV_OFFSET;
        }
      }
      i += units - 1;
    }
  }
  if (len > 0) {
    if (count === out.length) out = grown(out);
    out[count++] = fmix32(h ^ len);
  }
  return out.subarray(0, count);
}

function grown(out: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(out.length * 2);
  bigger.set(out);
  return bigger;
}
