/**
 * Host name lists (`--allow-hosts`): each entry stands for itself and every name under it, so
 * `example.com` covers `www.example.com` but not `badexample.com`. Entries are kept lower-case without a
 * leading dot, and a host is matched by walking up its labels, which costs one set lookup per label.
 */
import { hostnameOf } from "./domain.ts";

/** Canonical form of one entry: lower-case, no leading dot, no trailing dot; throws when it is no host name. */
export function canonicalHostName(entry: string): string {
  const name = entry.trim().toLowerCase().replace(/^\.+/, "").replace(/\.+$/, "");
  if (name === "" || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name) || name.split(".").some((l) => l.length > 63)) {
    throw new Error(`"${entry}" is not a host name (letters, digits, - and _ in dot-separated labels; IDNs as xn--)`);
  }
  return name;
}

export class HostNameSet {
  private readonly names: ReadonlySet<string>;

  constructor(entries: Iterable<string>) {
    this.names = new Set([...entries].map(canonicalHostName));
  }

  get size(): number {
    return this.names.size;
  }

  /** The entry that covers the host key's name (itself or a parent), or undefined. */
  match(hostKey: string): string | undefined {
    let name = hostnameOf(hostKey);
    for (;;) {
      if (this.names.has(name)) return name;
      const dot = name.indexOf(".");
      if (dot < 0) return undefined;
      name = name.slice(dot + 1);
    }
  }
}
