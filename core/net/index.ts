/**
 * The face of `core/net`: network addresses as text and address safety. `host:port` is parsed and
 * written one way (IPv6 in brackets). {@link AddressPolicy} decides whether the crawler may send a
 * request to a host (by its spelling: IP literals in every notation, localhost, local and single-label
 * names, empty hosts, configured deny lists) or connect to an address a name resolved to. Admission, the
 * fetcher and the connector all ask it, so one table of ranges (ranges.ts) serves them all. Pure and
 * runtime-neutral.
 */
export { formatHost, formatHostPort, parseHostPort, type HostPort } from "./host-port.ts";
export {
  AddressPolicy,
  describeRefusal,
  type AddressPolicySettings,
  type AddressRules,
  type Refusal,
  type RefusalReason,
} from "./policy.ts";
export { classifyIp, embeddedIpv4, type AddressRange } from "./ranges.ts";
export { formatIp, parseIp, parseIpv4, parseIpv6, type Ip, type Ipv4, type Ipv6 } from "./ip.ts";
export { cidrContains, parseCidr, type Cidr } from "./cidr.ts";
export { classifyName, hostNameOf, parseHostSuffix, type NameKind } from "./names.ts";
