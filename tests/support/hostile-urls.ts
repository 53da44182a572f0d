/**
 * The hostile-URL suite's list: URLs a stranger's page can contain to make a crawler reach an internal
 * address, each with the trick it plays and the address policy's verdict (core/net RefusalReason). The
 * loopback tricks all aim at one "internal network" the tests stand up themselves: a test web listening on
 * 127.0.0.2 (`internal.port`), whose own request log must stay empty. Other internal ranges need no
 * listener: they must be refused before any connection, and the fetcher's outcome says so.
 *
 * `resolvesTo` marks a DNS name whose answer is internal: only the connector can refuse it, and only
 * without a proxy (a proxy resolves names itself and must apply the same policy). Tests give the fetcher
 * a resolver that answers these names. `parses: false` marks a URL the WHATWG parser itself rejects
 * (a zone id): it never becomes a request either, but is "not a URL" rather than refused.
 */
import type { RefusalReason } from "../../core/net/index.ts";

export interface HostileUrl {
  url: string;
  what: string;
  reason: RefusalReason;
  resolvesTo?: string;
  parses?: false;
}

/** The internal network's address: a second loopback address, so the "public" test web can be 127.0.0.1. */
export const INTERNAL_ADDRESS = "127.0.0.2";

export function hostileUrls(internal: { port: number }): HostileUrl[] {
  const p = internal.port;
  const loop = (url: string, what: string): HostileUrl => ({ url, what, reason: "loopback" });
  return [
    // 127.0.0.2 in every IPv4 notation a browser or inet_aton accepts.
    loop(`http://127.0.0.2:${p}/`, "dotted quad"),
    loop(`http://2130706434:${p}/`, "one decimal number"),
    loop(`http://0x7f000002:${p}/`, "one hex number"),
    loop(`http://0X7F000002:${p}/admin`, "one hex number, upper case"),
    loop(`http://0x7f.0.0.2:${p}/`, "hex first part"),
    loop(`http://0x7f.0x0.0x0.0x2:${p}/`, "hex parts"),
    loop(`http://0177.0.0.2:${p}/`, "octal first part"),
    loop(`http://0177.0000.0000.0002:${p}/`, "octal parts, zero-padded"),
    loop(`http://00000000000000000177.0.0.2:${p}/`, "octal with many leading zeros"),
    loop(`http://127.2:${p}/`, "two parts (127.2)"),
    loop(`http://127.0.2:${p}/`, "three parts (127.0.2)"),
    loop(`http://0x7f.2:${p}/`, "two parts, hex"),
    loop(`http://127.000.000.002:${p}/`, "zero-padded parts"),
    loop(`http://127.0.0.2.:${p}/`, "trailing dot"),
    loop(`http://%31%32%37.0.0.2:${p}/`, "percent-encoded digits"),
    loop(`http://\uff11\uff12\uff17.\uff10.\uff10.\uff12:${p}/`, "fullwidth digits"),
    loop(`http://127\u30020\u30020\u30022:${p}/`, "ideographic full stops"),
    loop(`http://user:secret@127.0.0.2:${p}/`, "userinfo before the address"),
    loop(`http://public.test@127.0.0.2:${p}/`, "a public name as userinfo"),
    loop(`http:\\\\127.0.0.2:${p}\\`, "backslashes"),
    loop(`HTTP://127.0.0.2:${p}/`, "upper-case scheme"),
    // The same address inside IPv6.
    loop(`http://[::ffff:127.0.0.2]:${p}/`, "IPv4-mapped IPv6"),
    loop(`http://[::ffff:7f00:2]:${p}/`, "IPv4-mapped IPv6, hex"),
    loop(`http://[0:0:0:0:0:ffff:127.0.0.2]:${p}/`, "IPv4-mapped IPv6, long form"),
    loop(`http://[::127.0.0.2]:${p}/`, "IPv4-compatible IPv6"),
    loop(`http://[::ffff:0:127.0.0.2]:${p}/`, "SIIT IPv4-translated IPv6"),
    loop(`http://[64:ff9b::127.0.0.2]:${p}/`, "NAT64 IPv6"),
    loop(`http://[2002:7f00:2::]:${p}/`, "6to4 IPv6"),
    loop(`http://[::1]:${p}/`, "IPv6 loopback"),
    loop(`http://[0:0:0:0:0:0:0:1]:${p}/`, "IPv6 loopback, long form"),
    { url: `http://[fe80::1%25lo]:${p}/`, what: "IPv6 link-local with a zone id", reason: "link-local", parses: false },
    // The machine itself under other names and addresses.
    { url: `http://localhost:${p}/`, what: "localhost", reason: "localhost" },
    { url: `http://LOCALHOST.:${p}/`, what: "localhost, upper case, trailing dot", reason: "localhost" },
    { url: `http://admin.localhost:${p}/`, what: "a name under .localhost", reason: "localhost" },
    { url: `http://0.0.0.0:${p}/`, what: "0.0.0.0 (connects to this host on Linux)", reason: "this-network" },
    { url: `http://0:${p}/`, what: "0 (0.0.0.0)", reason: "this-network" },
    { url: `http://[::]:${p}/`, what: "IPv6 unspecified", reason: "unspecified" },
    // Cloud metadata, the prize of SSRF.
    { url: "http://169.254.169.254/latest/meta-data/iam/security-credentials/", what: "metadata", reason: "metadata" },
    { url: "http://0xa9fea9fe/latest/meta-data/", what: "metadata, hex", reason: "metadata" },
    { url: "http://2852039166/latest/meta-data/", what: "metadata, decimal", reason: "metadata" },
    { url: "http://0251.0376.0251.0376/latest/meta-data/", what: "metadata, octal", reason: "metadata" },
    { url: "http://169.254.43518/latest/meta-data/", what: "metadata, two parts", reason: "metadata" },
    { url: "http://[::ffff:169.254.169.254]/latest/meta-data/", what: "metadata, IPv4-mapped", reason: "metadata" },
    { url: "http://[fd00:ec2::254]/latest/meta-data/", what: "metadata, AWS IPv6", reason: "metadata" },
    { url: "http://169.254.170.2/v2/credentials/x", what: "ECS task credentials", reason: "metadata" },
    { url: "http://100.100.100.200/latest/meta-data/", what: "Alibaba Cloud metadata", reason: "metadata" },
    { url: "http://metadata.google.internal/computeMetadata/v1/", what: "GCP metadata name", reason: "metadata" },
    { url: "http://metadata/computeMetadata/v1/", what: "GCP metadata, single label", reason: "metadata" },
    // Private, link-local and other special ranges.
    { url: "http://10.0.0.1/", what: "private 10/8", reason: "private" },
    { url: "http://172.16.0.1/", what: "private 172.16/12", reason: "private" },
    { url: "http://192.168.1.1/", what: "private 192.168/16", reason: "private" },
    { url: "http://3232235777/", what: "private, decimal", reason: "private" },
    { url: "http://[fd12:3456::1]/", what: "IPv6 unique-local", reason: "unique-local" },
    { url: "http://169.254.1.1/", what: "link-local", reason: "link-local" },
    { url: "http://[fe80::1]/", what: "IPv6 link-local", reason: "link-local" },
    { url: "http://100.64.0.1/", what: "CGNAT", reason: "cgnat" },
    { url: "http://224.0.0.1/", what: "multicast", reason: "multicast" },
    { url: "http://255.255.255.255/", what: "broadcast", reason: "broadcast" },
    { url: "http://240.0.0.1/", what: "reserved", reason: "reserved" },
    // Names only a private resolver answers, and empty or single-label hosts.
    { url: "http://printer.local/", what: "mDNS name", reason: "local-name" },
    { url: "http://db.internal/", what: ".internal name", reason: "local-name" },
    { url: "http://router.home.arpa/", what: ".home.arpa name", reason: "local-name" },
    { url: "http:///nohost", what: "empty authority: the parser takes the path as a single-label host", reason: "single-label" },
    { url: "http://intranet/", what: "single-label name", reason: "single-label" },
    // Public-looking names whose DNS answer is internal: refused at connect time, without a proxy.
    {
      url: `http://rebound.test:${p}/`,
      what: "a name resolving to the internal address",
      reason: "loopback",
      resolvesTo: INTERNAL_ADDRESS,
    },
    {
      url: `http://mapped.test:${p}/`,
      what: "a name resolving to IPv4-mapped IPv6",
      reason: "loopback",
      resolvesTo: `::ffff:${INTERNAL_ADDRESS}`,
    },
    { url: "http://inside.test/", what: "a name resolving to a private address", reason: "private", resolvesTo: "10.1.2.3" },
    { url: "http://creds.test/latest/meta-data/", what: "a name resolving to metadata", reason: "metadata", resolvesTo: "169.254.169.254" },
  ];
}

/** A resolver for the suite's DNS names; `public` names resolve to the public test web's address. */
export function hostileLookup(list: readonly HostileUrl[], publicNames: Record<string, string> = {}) {
  const answers = new Map<string, string>(Object.entries(publicNames));
  for (const h of list) if (h.resolvesTo) answers.set(new URL(h.url).hostname, h.resolvesTo);
  return async (host: string) => {
    const address = answers.get(host);
    if (!address) throw Object.assign(new Error(`no such host ${host} in the test resolver`), { code: "ENOTFOUND" });
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };
}
