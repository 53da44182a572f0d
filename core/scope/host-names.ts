/**
 * Host name lists (`--allow-hosts`): each entry stands for itself and every name under it, so
 * `example.com` covers `www.example.com` but not `badexample.com`, as in the address policy's
 * `--deny-hosts` (core/net reads both). A host is matched by walking up its labels, one set lookup each.
 */
import { parseHostSuffix } from "../net/index.ts";
import { hostnameOf } from "./domain.ts";

export class HostNameSet {
  private readonly names: ReadonlySet<string>;

  constructor(entries: Iterable<string>) {
    this.names = new Set([...entries].map(parseHostSuffix));
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
