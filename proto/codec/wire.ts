/**
 * The protobuf wire format's pieces for the hand-written codec (discovered-links-encode.ts): varints and
 * UTF-8 written into a buffer sized beforehand.
 */

/** Bytes of `v` (0 to 2^32-1) as a varint. */
export function varint32Size(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Bytes of the safe integer `n` as an int64 varint: a negative one is sign-extended to 10. */
export function varint64Size(n: number): number {
  if (n < 0) return 10;
  let size = 1;
  for (let rest = n; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

export function putVarint32(out: Uint8Array, pos: number, v: number): number {
  while (v > 0x7f) {
    out[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[pos++] = v;
  return pos;
}

/** The safe integer `n` as an int64 varint (two's complement in 64 bits). */
export function putVarint64(out: Uint8Array, pos: number, n: number): number {
  // Both words exact: `>>> 0` takes n modulo 2^32, and the division by a power of two is exact.
  let lo = n >>> 0;
  let hi = Math.floor(n / 0x1_0000_0000) >>> 0;
  while (hi !== 0 || lo > 0x7f) {
    out[pos++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  out[pos++] = lo;
  return pos;
}

/** UTF-8 bytes of `s` as TextEncoder writes it: a lone surrogate becomes U+FFFD (3 bytes). */
export function utf8Length(s: string): number {
  const n = s.length;
  let len = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) len += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && isLowSurrogate(s.charCodeAt(i + 1))) {
      len += 2; // two units, four bytes
      i++;
    } else len += 2;
  }
  return len;
}

/** Writes `s` as UTF-8 (as TextEncoder does, lone surrogates as U+FFFD); returns the position after it. */
export function putUtf8(out: Uint8Array, pos: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[pos++] = c;
      continue;
    }
    if (c < 0x800) {
      out[pos++] = 0xc0 | (c >> 6);
      out[pos++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && isLowSurrogate(next)) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        out[pos++] = 0xf0 | (cp >> 18);
        out[pos++] = 0x80 | ((cp >> 12) & 0x3f);
        out[pos++] = 0x80 | ((cp >> 6) & 0x3f);
        out[pos++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
      c = 0xfffd;
    }
    out[pos++] = 0xe0 | (c >> 12);
    out[pos++] = 0x80 | ((c >> 6) & 0x3f);
    out[pos++] = 0x80 | (c & 0x3f);
  }
  return pos;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
