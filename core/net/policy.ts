/**
 * The address policy: whether the crawler may send a request to a host, judged from the host's spelling
 * (admission of every URL, and again at fetch time, with or without a proxy) and from each address a name
 * resolves to (at connect time, without a proxy). One set of rules for all three places:
 *
 *   1. no host at all                                   refused (`empty-host`)
 *   2. an IP literal, in any notation (ip.ts):
 *        in a --deny-addresses range                    refused (`denied-address`)
 *        in an --allow-addresses range                  allowed, whatever its kind (metadata included)
 *        in a special range (ranges.ts)                 refused by its kind (`loopback`, `metadata`...)
 *                                                       unless private addresses are allowed and it is
 *                                                       not metadata
 *   3. a name:
 *        under a --deny-hosts entry                     refused (`denied-host`)
 *        a metadata service's name                      refused (`metadata`)
 *        localhost, a local or a single-label name      refused unless private addresses are allowed
 *
 * Metadata addresses stay refused with private addresses allowed: no crawl needs them, and reaching one
 * from a cloud host leaks its credentials. Only an explicit --allow-addresses range lets one through.
 */
import { cidrContains, parseCidr, type Cidr } from "./cidr.ts";
import { formatIp, formatIpv4, parseIp, type Ip } from "./ip.ts";
import { classifyName, hostNameOf, isUnder, parseHostSuffix } from "./names.ts";
import { classifyIp, embeddedIpv4, type AddressRange } from "./ranges.ts";

/** Why a host or address is refused; also the suffix of its counter (`admission.refused.loopback`). */
export type RefusalReason = AddressRange | "empty-host" | "localhost" | "local-name" | "single-label" | "denied-address" | "denied-host";

export interface Refusal {
  readonly reason: RefusalReason;
  /** The host as judged (lower case, no port or brackets). */
  readonly host: string;
  /** The address refused, canonical text: the literal itself, or what the name resolved to. */
  readonly address?: string;
  /** The configured range or host entry that matched, for `denied-*`. */
  readonly rule?: string;
  /** The IPv4 address an IPv6 `address` carries (`::ffff:a9fe:a9fe` carries 169.254.169.254). */
  readonly carried?: string;
}

/** The policy's settings, as the crawl policy table holds them (core/config). */
export interface AddressRules {
  /** Allow loopback, private and similar ranges, localhost and local names; metadata stays refused. */
  readonly allowPrivate: boolean;
  /** Ranges allowed whatever their kind (`10.1.0.0/16`, `169.254.169.254`). */
  readonly allow: readonly string[];
  /** Ranges always refused; they win over `allow`. */
  readonly deny: readonly string[];
  /** Names refused with every name under them (`corp.example.com`). */
  readonly denyHosts: readonly string[];
}

/** The address slice of the crawl policy (core/config PolicyConfig). */
export interface AddressPolicySettings {
  readonly allowPrivateAddresses: boolean;
  readonly allowAddresses: readonly string[];
  readonly denyAddresses: readonly string[];
  readonly denyHosts: readonly string[];
}

const KINDS_LIFTED_BY_ALLOW_PRIVATE = new Set<RefusalReason>(["localhost", "local-name", "single-label"]);
/** Host verdicts remembered: links repeat their hosts, and admission judges every link. */
const CACHE_SIZE = 4096;

export class AddressPolicy {
  readonly #allowPrivate: boolean;
  readonly #allow: readonly Cidr[];
  readonly #deny: readonly Cidr[];
  readonly #denyHosts: readonly string[];
  /** Recent verdicts by host key (null: allowed); cleared when full, so it stays bounded. */
  readonly #verdicts = new Map<string, Refusal | null>();

  /** Throws an Error naming the first range or host entry that cannot be read. */
  constructor(rules: Partial<AddressRules> = {}) {
    this.#allowPrivate = rules.allowPrivate ?? false;
    this.#allow = (rules.allow ?? []).map(parseCidr);
    this.#deny = (rules.deny ?? []).map(parseCidr);
    this.#denyHosts = (rules.denyHosts ?? []).map(parseHostSuffix);
  }

  /** The policy of a crawl policy's address settings. */
  static of(settings: AddressPolicySettings): AddressPolicy {
    return new AddressPolicy({
      allowPrivate: settings.allowPrivateAddresses,
      allow: settings.allowAddresses,
      deny: settings.denyAddresses,
      denyHosts: settings.denyHosts,
    });
  }

  get allowsPrivate(): boolean {
    return this.#allowPrivate;
  }

  /**
   * Judges a host by its spelling alone: a URL's host name or a host key (`example.com:8080`, `[::1]:80`).
   * A name that passes may still resolve to a refused address; `checkAddress` judges that at connect time.
   */
  checkHost(hostOrKey: string): Refusal | undefined {
    const known = this.#verdicts.get(hostOrKey);
    if (known !== undefined) return known ?? undefined;
    const verdict = this.#judgeHost(hostOrKey);
    if (this.#verdicts.size >= CACHE_SIZE) this.#verdicts.clear();
    this.#verdicts.set(hostOrKey, verdict ?? null);
    return verdict;
  }

  #judgeHost(hostOrKey: string): Refusal | undefined {
    const host = hostNameOf(hostOrKey);
    if (host === "") return { reason: "empty-host", host };
    const ip = parseIp(host);
    if (ip) return this.#judgeIp(ip, host);
    for (const entry of this.#denyHosts) if (isUnder(host, entry)) return { reason: "denied-host", host, rule: entry };
    const kind = classifyName(host);
    if (kind === undefined) return undefined;
    if (this.#allowPrivate && KINDS_LIFTED_BY_ALLOW_PRIVATE.has(kind)) return undefined;
    return { reason: kind, host };
  }

  /** Judges an address `host` resolved to (or a literal); `host` names it in the refusal. */
  checkAddress(address: string | Ip, host?: string): Refusal | undefined {
    const ip = typeof address === "string" ? parseIp(address) : address;
    const text = typeof address === "string" ? address : formatIp(address);
    // A resolver never answers with something that is not an address; refuse rather than guess.
    if (!ip) return { reason: "reserved", host: host ?? text, address: text };
    return this.#judgeIp(ip, host ?? formatIp(ip));
  }

  #judgeIp(ip: Ip, host: string): Refusal | undefined {
    const address = formatIp(ip.family === 6 ? { family: 6, groups: ip.groups } : ip);
    const v4 = ip.family === 6 ? embeddedIpv4(ip) : undefined;
    const carried = v4 === undefined ? {} : { carried: formatIpv4(v4) };
    for (const cidr of this.#deny)
      if (cidrContains(cidr, ip)) return { reason: "denied-address", host, address, rule: cidr.text, ...carried };
    for (const cidr of this.#allow) if (cidrContains(cidr, ip)) return undefined;
    const range = classifyIp(ip);
    if (range === undefined) return undefined;
    if (this.#allowPrivate && range !== "metadata") return undefined;
    return { reason: range, host, address, ...carried };
  }
}

/** One line for logs, fetch outcomes and `url explain`: what was refused and why. */
export function describeRefusal(r: Refusal): string {
  switch (r.reason) {
    case "empty-host":
      return "no host name";
    case "localhost":
      return `${r.host} is a localhost name (always the machine itself)`;
    case "local-name":
      return `${r.host} is a local name (only private resolvers answer it)`;
    case "single-label":
      return `${r.host} is a single-label name (a resolver completes it with its private search domains)`;
    case "denied-host":
      return `${r.host} is denied by the host rule ${r.rule}`;
    case "denied-address":
      return `${subject(r)} is in the denied range ${r.rule}`;
    case "metadata":
      return r.address === undefined ? `${r.host} is the name of a metadata service` : `${subject(r)} is a metadata address`;
    default:
      return `${subject(r)} is a ${r.reason} address`;
  }
}

function subject(r: Refusal): string {
  if (r.address === undefined) return r.host;
  const notes: string[] = [];
  if (r.address !== r.host) notes.push(r.address);
  if (r.carried !== undefined) notes.push(`carrying ${r.carried}`);
  return notes.length === 0 ? r.host : `${r.host} (${notes.join(", ")})`;
}
