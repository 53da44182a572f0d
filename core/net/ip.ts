/**
 * IP literals in every notation a browser or a resolver accepts, parsed into one value. A host string can
 * reach the crawler through the WHATWG URL parser (which rewrites `0x7f.1` to `127.0.0.1`) or without it
 * (a host key read off the bus, a resolver's answer, a configured range), so the parser here does not rely
 * on that rewrite: IPv4 as `inet_aton` and the WHATWG host parser both read it (one to four parts, each
 * decimal, octal with a leading `0` or hex with `0x`, the last part filling the remaining bytes, so
 * `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are all 127.0.0.1; one trailing dot allowed), and
 * IPv6 in RFC 4291 text form with or without brackets, with an embedded dotted IPv4 tail and an optional
 * zone id (`%eth0`, or `%25eth0` as URLs percent-encode it). Pure: no runtime module.
 */

/** An IPv4 address as an unsigned 32-bit value. */
export interface Ipv4 {
  readonly family: 4;
  readonly value: number;
}

/** An IPv6 address as eight 16-bit groups; `zone` is the scope id after `%`, if one was given. */
export interface Ipv6 {
  readonly family: 6;
  readonly groups: readonly number[];
  readonly zone?: string;
}

export type Ip = Ipv4 | Ipv6;

/**
 * Parses `text` as an IP literal in any notation above, or returns undefined when it is not one (a domain
 * name, garbage). Surrounding brackets are accepted for IPv6 only, as in a URL's host.
 */
export function parseIp(text: string): Ip | undefined {
  if (text.startsWith("[") && text.endsWith("]")) return parseIpv6(text.slice(1, -1));
  if (text.includes(":")) return parseIpv6(text);
  return parseIpv4(text);
}

/** The IPv4 notations of `inet_aton` and WHATWG; undefined when `text` is not one of them. */
export function parseIpv4(text: string): Ipv4 | undefined {
  // Most hosts are names: one whose last label is not a number (`example.com`) is not an address, which
  // is cheap to see before splitting (WHATWG's "ends in a number" test).
  if (!endsInNumber(text)) return undefined;
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop(); // one trailing dot: `127.0.0.1.`
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parsePart(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  // Every part but the last is one byte; the last fills the bytes that are left (`127.1`: 1 is 0.0.1).
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  let value = 0;
  for (const n of numbers) value = value * 256 + n;
  value = value * 256 ** (4 - numbers.length) + last;
  return { family: 4, value: value >>> 0 };
}

/** Whether the last label (one trailing dot ignored) is all decimal digits, or `0x` and hex digits. */
function endsInNumber(text: string): boolean {
  let end = text.length;
  if (end > 1 && text.charCodeAt(end - 1) === 0x2e) end--;
  const start = text.lastIndexOf(".", end - 1) + 1;
  if (start >= end) return false;
  let hex = false;
  let i = start;
  if (end - start >= 2 && text.charCodeAt(start) === 0x30 && (text.charCodeAt(start + 1) | 0x20) === 0x78) {
    hex = true;
    i += 2;
  }
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 0x30 && c <= 0x39;
    const hexLetter = hex && (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66;
    if (!digit && !hexLetter) return false;
  }
  return true;
}

/** One IPv4 part: `0x..` hex (`0x` alone is 0), `0..` octal, else decimal. */
function parsePart(part: string): number | undefined {
  let digits = part;
  let radix = 10;
  if (/^0[xX]/.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0;
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const pattern = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return undefined;
  // Leading zeros can make a part long without making it large (`00000000000177`); strip them first.
  const significant = digits.replace(/^0+(?=.)/, "");
  if (significant.length > 12) return undefined; // far beyond 2^32 in any radix
  return parseInt(significant, radix);
}

/** RFC 4291 text form, optionally with a zone id; undefined when `text` is not an IPv6 address. */
export function parseIpv6(text: string): Ipv6 | undefined {
  let body = text;
  let zone: string | undefined;
  const percent = text.indexOf("%");
  if (percent >= 0) {
    body = text.slice(0, percent);
    zone = text.slice(percent + 1);
    if (zone.startsWith("25") && zone.length > 2) zone = zone.slice(2); // `%25eth0` in a URL is `%eth0`
    if (zone === "" || !/^[A-Za-z0-9_.~-]+$/.test(zone)) return undefined;
  }
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  if (lastColon < 0) return undefined;
  if (body.includes(".", lastColon)) {
    // Only the strict dotted quad may follow the last colon (`::ffff:127.0.0.1`), as RFC 4291 says.
    const v4 = body.slice(lastColon + 1);
    if (!/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(v4)) return undefined;
    const bytes = v4.split(".").map(Number);
    if (bytes.some((b) => b > 255)) return undefined;
    tail = [bytes[0]! * 256 + bytes[1]!, bytes[2]! * 256 + bytes[3]!];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1); // `1:2:3:4:5:6:1.2.3.4` loses its separator
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  const known = left.length + right.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  const gap = halves.length === 2 ? new Array<number>(8 - known).fill(0) : [];
  const groups = [...left, ...gap, ...right, ...tail];
  return zone === undefined ? { family: 6, groups } : { family: 6, groups, zone };
}

function groupsOf(part: string): number[] | undefined {
  if (part === "") return [];
  const groups: number[] = [];
  for (const group of part.split(":")) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    groups.push(parseInt(group, 16));
  }
  return groups;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as `::`), zone kept. */
export function formatIp(ip: Ip): string {
  if (ip.family === 4) return formatIpv4(ip.value);
  const g = ip.groups;
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not shortened (RFC 5952 4.2.2)
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number) =>
    g
      .slice(from, to)
      .map((n) => n.toString(16))
      .join(":");
  const text = bestStart < 0 ? hex(0, 8) : `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
  return ip.zone === undefined ? text : `${text}%${ip.zone}`;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}
