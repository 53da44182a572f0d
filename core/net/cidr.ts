/**
 * Address ranges an operator writes in the configuration (`10.1.0.0/16`, `fd00::/8`, or one address):
 * parsed strictly (dotted quad or RFC 4291 text, no exotic IPv4 notation in a config file) and matched
 * against any parsed address. An IPv6 address that carries an IPv4 address (`::ffff:10.1.2.3`) matches
 * the IPv4 ranges too, so writing a range once covers both spellings.
 */
import { formatIp, parseIpv6, type Ip } from "./ip.ts";
import { embeddedIpv4, inV4Prefix } from "./ranges.ts";

export interface Cidr {
  readonly family: 4 | 6;
  /** IPv4: the 32-bit base; IPv6: unused (0). */
  readonly base4: number;
  /** IPv6: the eight groups of the base; IPv4: empty. */
  readonly base6: readonly number[];
  readonly prefix: number;
  /** Canonical text, e.g. `10.1.0.0/16`. */
  readonly text: string;
}

/** Parses `a.b.c.d[/n]` or `x:y::z[/n]`; throws an Error saying what is wrong. */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  const slash = trimmed.indexOf("/");
  const addressText = slash < 0 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash < 0 ? undefined : trimmed.slice(slash + 1);
  const strictV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addressText);
  let ip: Ip | undefined;
  if (strictV4) {
    const bytes = strictV4.slice(1).map(Number);
    if (bytes.every((b) => b <= 255))
      ip = { family: 4, value: ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0 };
  } else if (addressText.includes(":")) {
    const v6 = parseIpv6(addressText);
    if (v6 && v6.zone === undefined) ip = v6;
  }
  if (!ip) throw new Error(`"${clip(text)}" is not an address range (write 10.0.0.0/8, 192.0.2.7 or fd00::/8)`);
  const max = ip.family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw new Error(`"${clip(text)}": the prefix length must be a number`);
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) throw new Error(`"${clip(text)}": the prefix length must be at most ${max}`);
  if (ip.family === 4) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    const base = (ip.value & mask) >>> 0;
    return { family: 4, base4: base, base6: [], prefix, text: `${formatIp({ family: 4, value: base })}/${prefix}` };
  }
  const base6 = ip.groups.map((g, i) => g & groupMask(prefix, i));
  return { family: 6, base4: 0, base6, prefix, text: `${formatIp({ family: 6, groups: base6 })}/${prefix}` };
}

/** Whether `ip` (or the IPv4 address an IPv6 `ip` carries) lies in `cidr`. */
export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family === 4) {
    const value = ip.family === 4 ? ip.value : embeddedIpv4(ip);
    return value !== undefined && inV4Prefix(value, cidr.base4, cidr.prefix);
  }
  if (ip.family !== 6) return false;
  return ip.groups.every((g, i) => (g & groupMask(cidr.prefix, i)) === cidr.base6[i]);
}

/** The mask of group `i` (16 bits each) for a prefix of `prefix` bits. */
function groupMask(prefix: number, i: number): number {
  const bits = Math.max(0, Math.min(16, prefix - 16 * i));
  return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
}

function clip(text: string): string {
  return text.length <= 64 ? text : `${text.slice(0, 64)}...`;
}
