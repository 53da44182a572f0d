/**
 * The protobuf wire format's pieces for the hand-written codec (discovered-links-encode.ts and -decode.ts):
 * varints and UTF-8 written into a buffer sized beforehand, and a reader that fails exactly where and how the
 * generated decoders' BinaryReader (@bufbuild/protobuf 2) fails, with the same messages, so that a malformed
 * message gives the same CodecError through either. What the reader must match, as that reader behaves:
 *
 *  - a varint is at most 10 bytes ("invalid varint" when the 10th still continues); a uint32 keeps the low
 *    32 bits; reading past the end reads nothing, and the bounds are checked once the value is read
 *    ("premature EOF", a RangeError);
 *  - the end of an embedded message is not a bound: only the end of the buffer is;
 *  - an unknown field is skipped by its wire type: a varint of any length, 8 or 4 bytes, a length, or a group
 *    (nested at most 100 deep, its end tag matching its start for nested ones); wire types 6 and 7 cannot be
 *    skipped.
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

/** Nested groups an unknown field may hold before the reader gives up, as the generated decoders allow. */
const GROUP_DEPTH = 100;

/** A cursor over one message's bytes; every read advances `pos`. */
export class WireReader {
  pos = 0;
  readonly len: number;
  /** The last varint64(): the low and high 32-bit words (as int32s) of its low 64 bits. */
  lo = 0;
  hi = 0;
  private view: DataView | undefined;

  constructor(readonly buf: Uint8Array) {
    this.len = buf.length;
  }

  /** A varint's low 32 bits, unsigned. */
  uint32(): number {
    const buf = this.buf;
    const first = buf[this.pos];
    if (first !== undefined && first < 0x80) {
      this.pos++;
      return first;
    }
    let value = 0;
    for (let i = 0; ; i++) {
      // Past the end a byte reads as undefined: no bits and no continuation; the bounds check below fails.
      const b = buf[this.pos++] ?? 0;
      if (i < 4) value |= (b & 0x7f) << (7 * i);
      else if (i === 4) value |= (b & 0x0f) << 28;
      if (b < 0x80) break;
      if (i === 9) throw new Error("invalid varint");
    }
    this.checkBounds();
    return value >>> 0;
  }

  /** A varint's low 64 bits, into `lo` and `hi`. */
  varint64(): void {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; ; i++) {
      const b = buf[this.pos++] ?? 0;
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi = bits >> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) break;
      if (i === 9) throw new Error("invalid varint");
    }
    this.checkBounds();
    this.lo = lo;
    this.hi = hi;
  }

  bool(): boolean {
    const b = this.buf[this.pos];
    if (b !== undefined && b < 0x80) {
      this.pos++;
      return b !== 0;
    }
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  /**
   * A little-endian double. Its bounds are DataView's, as in the generated decoders: a truncated one fails
   * with the runtime's own RangeError.
   */
  double(): number {
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    const at = this.pos;
    this.pos += 8;
    return this.view.getFloat64(at, true);
  }

  /** A length-delimited field's start; `pos` moves past its end. */
  delimited(): number {
    const n = this.uint32();
    const start = this.pos;
    this.pos += n;
    this.checkBounds();
    return start;
  }

  /** Skips a field of this wire type whose tag was just read. */
  skip(wireType: number, fieldNo = 0, depth = GROUP_DEPTH): void {
    const buf = this.buf;
    switch (wireType) {
      case 0:
        while ((buf[this.pos++] ?? 0) >= 0x80) {}
        break;
      case 1:
        this.pos += 8;
        break;
      case 5:
        this.pos += 4;
        break;
      case 2: {
        const n = this.uint32();
        this.pos += n;
        break;
      }
      case 3:
        if (depth <= 0) throw new Error("maximum recursion depth reached");
        for (;;) {
          const start = this.pos;
          const tag = this.uint32();
          if (this.pos - start > 5 || (this.pos - start === 5 && buf[this.pos - 1]! > 0x0f)) {
            throw new Error("illegal tag: varint overflows uint32");
          }
          const no = tag >>> 3;
          const type = tag & 7;
          if (no <= 0 || type > 5) throw new Error(`illegal tag: field no ${no} wire type ${type}`);
          if (type === 4) {
            // The outermost group's end is not checked against its start, as in the generated decoders.
            if (fieldNo !== 0 && no !== fieldNo) throw new Error("invalid end group tag");
            break;
          }
          this.skip(type, no, depth - 1);
        }
        break;
      default:
        throw new Error(`cant skip wire type ${wireType}`);
    }
    this.checkBounds();
  }

  private checkBounds(): void {
    if (this.pos > this.len) throw new RangeError("premature EOF");
  }
}
