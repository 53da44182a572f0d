/**
 * Address policy: decides whether the crawler may open a connection to an IP address. The crawler
 * fetches URLs that strangers wrote, so without this check a page linking to `http://10.0.0.5/` or
 * to a name that resolves to `169.254.169.254` would make it probe the operator's own network or
 * read cloud credentials (SSRF). Loopback, private, link-local, CGNAT, "this network", multicast,
 * reserved and metadata addresses are refused unless private addresses are explicitly allowed;
 * metadata addresses are refused even then, because no crawl ever needs them and reaching one on a
 * cloud host leaks credentials. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by the IPv4 address they carry, so `::ffff:127.0.0.1` is loopback.
 */
import { isIP } from "node:net";

/** Why an address is refused; `undefined` from {@link refusalReason} means "public, go ahead". */
export type AddressRange =
  | "invalid"
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "link-local"
  | "shared-cgnat"
  | "multicast"
  | "reserved"
  | "broadcast"
  | "unique-local"
  | "site-local"
  | "discard-only"
  | "metadata";

type V4Range = readonly [base: number, prefix: number, range: AddressRange];

// Ordered most specific first so that 169.254.169.254 reads as metadata, not link-local.
const V4_RANGES: readonly V4Range[] = [
  [v4("169.254.169.254"), 32, "metadata"],
  [v4("100.100.100.200"), 32, "metadata"], // Alibaba Cloud's metadata service sits inside CGNAT space
  [v4("255.255.255.255"), 32, "broadcast"],
  [v4("0.0.0.0"), 8, "this-network"],
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "shared-cgnat"],
  [v4("127.0.0.0"), 8, "loopback"],
  [v4("169.254.0.0"), 16, "link-local"],
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.168.0.0"), 16, "private"],
  [v4("224.0.0.0"), 4, "multicast"],
  [v4("240.0.0.0"), 4, "reserved"],
];

/**
 * The reason `ip` may not be connected to, or `undefined` when it may. `allowPrivate` lifts every
 * refusal except metadata (tests and intranet crawls need loopback and private ranges).
 */
export function refusalReason(ip: string, allowPrivate: boolean): AddressRange | undefined {
  const range = classifyAddress(ip);
  if (range === undefined) return undefined;
  if (allowPrivate && range !== "metadata" && range !== "invalid") return undefined;
  return range;
}

/** The special range `ip` falls in, or `undefined` for an ordinary public unicast address. */
export function classifyAddress(ip: string): AddressRange | undefined {
  const bare = stripZone(ip);
  const family = isIP(bare);
  if (family === 4) return classifyV4(v4(bare));
  if (family === 6) return classifyV6(parseV6(bare));
  return "invalid";
}

function classifyV4(addr: number): AddressRange | undefined {
  for (const [base, prefix, range] of V4_RANGES) {
    if (inV4Prefix(addr, base, prefix)) return range;
  }
  return undefined;
}

function classifyV6(g: readonly number[]): AddressRange | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (g6 * 0x10000 + g7) >>> 0;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return "unspecified";
    if (g6 === 0 && g7 === 1) return "loopback";
    return classifyV4(embedded); // IPv4-compatible ::a.b.c.d (deprecated, still routable by some stacks)
  }
  if (upperZero && g5 === 0xffff) return classifyV4(embedded); // IPv4-mapped ::ffff:a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyV4(embedded); // NAT64 64:ff9b::a.b.c.d reaches the IPv4 address it carries
  }
  if (g0 === 0x2002) return classifyV4((g1 * 0x10000 + g2) >>> 0); // 6to4 carries its IPv4 in bits 16..47
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return "metadata"; // AWS's IPv6 metadata endpoint fd00:ec2::254
  }
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only";
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

function v4(text: string): number {
  const parts = text.split(".");
  let value = 0;
  for (const part of parts) value = value * 256 + Number(part);
  return value >>> 0;
}

function inV4Prefix(addr: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
}

/** Parses a valid IPv6 text form (already checked by `isIP`) into eight 16-bit groups. */
function parseV6(text: string): number[] {
  let tail: number[] = [];
  let body = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const value = v4(text.slice(lastColon + 1));
    tail = [value >>> 16, value & 0xffff];
    body = text.slice(0, lastColon);
    if (body.endsWith(":")) body += ":"; // "::1.2.3.4" and "1::1.2.3.4" keep their "::"
  }
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const halves = body.split("::");
  if (halves.length === 1) return [...parse(body), ...tail];
  const left = parse(halves[0] ?? "");
  const right = parse(halves[1] ?? "");
  const gap = new Array<number>(8 - tail.length - left.length - right.length).fill(0);
  return [...left, ...gap, ...right, ...tail];
}

function stripZone(ip: string): string {
  const percent = ip.indexOf("%");
  return percent === -1 ? ip : ip.slice(0, percent);
}
