/**
 * The one table of special address ranges, shared by admission (literal hosts in URLs), the fetcher (the
 * same, with or without a proxy) and the connector (every address a name resolves to, without a proxy).
 * A crawler fetches URLs strangers wrote, so an address here would let a page make it probe the operator's
 * own network or read cloud credentials (SSRF). Most specific first, so 169.254.169.254 reads as metadata,
 * not link-local. IPv6 forms that carry an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4) are judged
 * by the IPv4 address they carry, so `::ffff:127.0.0.1` is loopback; every IPv6 address outside global
 * unicast (2000::/3) and the named ranges is reserved.
 */
import type { Ip, Ipv6 } from "./ip.ts";
import { parseIpv4 } from "./ip.ts";

/** Why an address is special; `undefined` from {@link classifyIp} means ordinary public unicast. */
export type AddressRange =
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "metadata"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "unique-local"
  | "site-local"
  | "discard-only";

type V4Rule = readonly [base: number, prefix: number, range: AddressRange];

const v4 = (text: string): number => parseIpv4(text)!.value;

/**
 * Cloud metadata and credential endpoints: AWS/GCP/Azure/Oracle/DigitalOcean (169.254.169.254), AWS ECS
 * task credentials (169.254.170.2), EKS pod identity (169.254.170.23), Alibaba Cloud (100.100.100.200).
 */
const V4_RULES: readonly V4Rule[] = [
  [v4("169.254.169.254"), 32, "metadata"],
  [v4("169.254.170.2"), 32, "metadata"],
  [v4("169.254.170.23"), 32, "metadata"],
  [v4("100.100.100.200"), 32, "metadata"],
  [v4("255.255.255.255"), 32, "broadcast"],
  [v4("0.0.0.0"), 8, "this-network"],
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "cgnat"],
  [v4("127.0.0.0"), 8, "loopback"],
  [v4("169.254.0.0"), 16, "link-local"],
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.0.0.0"), 24, "reserved"], // IETF protocol assignments
  [v4("192.0.2.0"), 24, "reserved"], // documentation
  [v4("192.88.99.0"), 24, "reserved"], // former 6to4 relay anycast
  [v4("192.168.0.0"), 16, "private"],
  [v4("198.18.0.0"), 15, "reserved"], // benchmarking
  [v4("198.51.100.0"), 24, "reserved"], // documentation
  [v4("203.0.113.0"), 24, "reserved"], // documentation
  [v4("224.0.0.0"), 4, "multicast"],
  [v4("240.0.0.0"), 4, "reserved"],
];

/** AWS's IPv6 metadata (fd00:ec2::254) and EKS pod identity (fd00:ec2::23) endpoints. */
const V6_METADATA: ReadonlyArray<readonly number[]> = [
  [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254],
  [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x23],
];

/** The special range `ip` falls in, or `undefined` for an ordinary public unicast address. */
export function classifyIp(ip: Ip): AddressRange | undefined {
  return ip.family === 4 ? classifyIpv4(ip.value) : classifyIpv6(ip);
}

export function classifyIpv4(value: number): AddressRange | undefined {
  for (const [base, prefix, range] of V4_RULES) if (inV4Prefix(value, base, prefix)) return range;
  return undefined;
}

function classifyIpv6(ip: Ipv6): AddressRange | undefined {
  const g = ip.groups;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0) {
    if (g7 === 0) return "unspecified";
    if (g7 === 1) return "loopback";
  }
  const carried = embeddedIpv4(ip);
  if (carried !== undefined) return classifyIpv4(carried);
  if (V6_METADATA.some((m) => m.every((x, i) => x === g[i]))) return "metadata";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only";
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  // IETF protocol assignments 2001::/23 (Teredo, benchmarking, ORCHID...) and documentation 2001:db8::/32.
  if (g0 === 0x2001 && (g1 < 0x0200 || g1 === 0x0db8)) return "reserved";
  if ((g0 & 0xe000) !== 0x2000) return "reserved"; // outside global unicast: unallocated or special
  return undefined;
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
 * `::a.b.c.d` (deprecated, still routed by some stacks), SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`
 * and 6to4 `2002:AABB:CCDD::`; undefined for any other address (`::` and `::1` are IPv6's own, not IPv4-compatible).
 */
export function embeddedIpv4(ip: Ipv6): number | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = ip.groups;
  const low = (g6 * 0x10000 + g7) >>> 0;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (upperZero && g4 === 0 && g5 === 0) return low > 1 ? low : undefined;
  if (upperZero && g4 === 0 && g5 === 0xffff) return low;
  if (upperZero && g4 === 0xffff && g5 === 0) return low;
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return low;
  if (g0 === 0x2002) return (g1 * 0x10000 + g2) >>> 0;
  return undefined;
}

export function inV4Prefix(value: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (value & mask) >>> 0 === (base & mask) >>> 0;
}
