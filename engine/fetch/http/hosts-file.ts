/**
 * `--hosts-file`: names the crawler resolves from a file before asking the system resolver, in the
 * /etc/hosts format (an address, then the names it answers for; `#` starts a comment). For a staging site
 * not yet in DNS, a crawl of one's own servers by their future names, or a test web on loopback addresses.
 * The addresses still pass the address policy at connect time like any resolved address (a loopback one
 * needs --allow-private-addresses). Read once at start; a line that is not an address and names is an error
 * naming the line, so a typo never silently falls through to the system resolver.
 */
import { isIP } from "node:net";
import { defaultLookup, type LookupFn, type ResolvedAddress } from "./dns-cache.ts";

export class HostsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HostsFileError";
  }
}

/** Name (lower case) -> its addresses, in file order. */
export function parseHostsFile(text: string, source: string): Map<string, ResolvedAddress[]> {
  const names = new Map<string, ResolvedAddress[]>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/#.*/, "").trim();
    if (line === "") continue;
    const [address, ...hosts] = line.split(/\s+/);
    const family = isIP(address!);
    if (family === 0) throw new HostsFileError(`${source}:${i + 1}: "${address}" is not an IP address`);
    if (hosts.length === 0) throw new HostsFileError(`${source}:${i + 1}: ${address} names no host`);
    for (const host of hosts) {
      const key = host.toLowerCase();
      const list = names.get(key) ?? [];
      list.push({ address: address!, family });
      names.set(key, list);
    }
  }
  return names;
}

/** A resolver that answers the file's names from it and asks `fallback` for every other name. */
export function hostsFileLookup(names: ReadonlyMap<string, ResolvedAddress[]>, fallback: LookupFn = defaultLookup): LookupFn {
  return async (host) => names.get(host.toLowerCase()) ?? fallback(host);
}
