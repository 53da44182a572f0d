/**
 * Just enough DER (ASN.1 Distinguished Encoding Rules) to write the X.509 certificates of x509.ts and to
 * find the few fields it reads back from a CA certificate: tag-length-value encoders for the types a
 * certificate uses, and a reader that walks a TLV tree. Not a general ASN.1 library: every value written
 * here has one encoding, and the reader only splits what it is given into elements.
 */

/** One DER element: its tag byte, where its contents start and end in `bytes`, and the whole element's end. */
export interface DerElement {
  readonly tag: number;
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  readonly contents: Uint8Array;
  /** The whole element, tag and length included. */
  readonly raw: Uint8Array;
}

/** Bytes this module writes: always backed by a plain ArrayBuffer, as WebCrypto takes them. */
export type Bytes = Uint8Array<ArrayBuffer>;

export const TAG = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length];
  const out: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n & 0xff);
  return [0x80 | out.length, ...out];
}

export function concat(parts: readonly Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A TLV with `tag` around `contents`. */
export function tlv(tag: number, contents: Uint8Array): Bytes {
  return concat([Uint8Array.of(tag, ...lengthBytes(contents.length)), contents]);
}

export const sequence = (...items: Uint8Array[]) => tlv(TAG.sequence, concat(items));
export const set = (...items: Uint8Array[]) => tlv(TAG.set, concat(items));
export const octetString = (bytes: Uint8Array) => tlv(TAG.octetString, bytes);
export const utf8String = (text: string) => tlv(TAG.utf8String, new TextEncoder().encode(text));
export const ia5String = (text: string) => tlv(TAG.ia5String, new TextEncoder().encode(text));
export const boolean = (value: boolean): Bytes => Uint8Array.of(0x01, 0x01, value ? 0xff : 0x00);
/** A BIT STRING with no unused bits. */
export const bitString = (bytes: Uint8Array) => tlv(TAG.bitString, concat([Uint8Array.of(0), bytes]));
/** `[n]` constructed, explicit tagging (a certificate's version, its extensions). */
export const explicit = (n: number, inner: Uint8Array) => tlv(0xa0 | n, inner);
/** `[n]` primitive, implicit tagging (GeneralName choices). */
export const implicit = (n: number, contents: Uint8Array) => tlv(0x80 | n, contents);

/** A non-negative INTEGER from big-endian bytes: leading zeros dropped, a 0 byte added when the top bit is set. */
export function unsignedInteger(bytes: Uint8Array): Bytes {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return tlv(TAG.integer, trimmed[0]! & 0x80 ? concat([Uint8Array.of(0), trimmed]) : trimmed);
}

export function smallInteger(n: number): Bytes {
  return unsignedInteger(Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff));
}

/** An OBJECT IDENTIFIER from its dotted form, e.g. `2.5.4.3`. */
export function oid(dotted: string): Bytes {
  const arcs = dotted.split(".").map(Number);
  const out: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [];
    for (let n = arc; ; n = Math.floor(n / 128)) {
      base128.unshift((n & 0x7f) | (base128.length > 0 ? 0x80 : 0));
      if (n < 128) break;
    }
    for (const item of base128) out.push(item);
  }
  return tlv(TAG.oid, Uint8Array.from(out));
}

/** A certificate's time: UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280, 4.1.2.5). */
export function time(date: Date): Bytes {
  const iso = date.toISOString(); // 2025-06-01T12:00:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "");
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(TAG.utcTime, new TextEncoder().encode(`${digits.slice(2)}Z`))
    : tlv(TAG.generalizedTime, new TextEncoder().encode(`${digits}Z`));
}

/** Reads the one element at `offset` of `bytes`; throws on a truncated or indefinite-length element. */
export function readElement(bytes: Uint8Array, offset = 0): DerElement {
  const tag = bytes[offset];
  let lengthByte = bytes[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error("DER: truncated element");
  let start = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error("DER: unsupported length encoding");
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = bytes[start + i];
      if (lengthByte === undefined) throw new Error("DER: truncated length");
      length = length * 256 + lengthByte;
    }
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw new Error("DER: element runs past the end of its data");
  return { tag, bytes, start, end, contents: bytes.subarray(start, end), raw: bytes.subarray(offset, end) };
}

/** The elements inside a constructed element (a SEQUENCE's items), in order. */
export function children(element: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let at = element.start; at < element.end; ) {
    const child = readElement(element.bytes, at);
    out.push(child);
    at = child.end;
  }
  return out;
}
