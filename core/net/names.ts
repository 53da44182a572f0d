/**
 * Host names that lead inside a private network whatever the public DNS says: `localhost` and every name
 * under `.localhost` (RFC 6761: always loopback), names under suffixes that only private resolvers answer
 * (`.local` is multicast DNS, `.internal` and `.home.arpa` are reserved for private use, and a few
 * undelegated TLDs that intranets use), single-label names (a resolver completes `http://intranet/` or
 * `http:///nohost` with its search domains), and the names of cloud metadata services. Also: splitting a
 * host key (`example.com:8080`, `[::1]:80`) into its host name.
 */

/** What a host name is, as far as its spelling tells. */
export type NameKind = "metadata" | "localhost" | "local-name" | "single-label";

/** Names of metadata services (GCP, its single-label search-domain form, AWS, Tencent Cloud). */
const METADATA_NAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.tencentyun.com",
]);

/** Suffixes no public name ends with: special-use or private-use names and undelegated intranet TLDs. */
const LOCAL_SUFFIXES = [".local", ".localdomain", ".internal", ".home.arpa", ".lan", ".intranet", ".corp", ".home", ".private"];

/**
 * The kind of `name` (lower case, no trailing dot, not an IP literal), or undefined for an ordinary
 * dotted name that only a resolver can judge.
 */
export function classifyName(name: string): NameKind | undefined {
  if (METADATA_NAMES.has(name)) return "metadata";
  if (name === "localhost" || name.endsWith(".localhost")) return "localhost";
  for (const suffix of LOCAL_SUFFIXES) if (name.endsWith(suffix)) return "local-name";
  if (!name.includes(".")) return "single-label";
  return undefined;
}

/**
 * The host name of a host key or URL host (`Example.COM.:8080` → `example.com`, `[::1]:80` → `::1`):
 * port and brackets dropped, lower case, trailing dots dropped.
 */
export function hostNameOf(hostKey: string): string {
  let host = hostKey;
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    host = close < 0 ? host.slice(1) : host.slice(1, close);
    return host.toLowerCase();
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && host.indexOf(":") === colon) host = host.slice(0, colon);
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 0x2e /* . */) end--;
  return host.slice(0, end).toLowerCase();
}

/**
 * Reads one entry of a deny list of host names: `corp.example.com`, `.corp.example.com` or
 * `*.corp.example.com` all mean that name and every name under it. Throws an Error saying what is wrong.
 */
export function parseHostSuffix(text: string): string {
  const name = text
    .trim()
    .toLowerCase()
    .replace(/^\*?\.+/, "")
    .replace(/\.+$/, "");
  if (name === "" || name.length > 253 || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) {
    throw new Error(
      `"${text.length <= 64 ? text : `${text.slice(0, 64)}...`}" is not a host name (write corp.example.com; IDN in punycode)`,
    );
  }
  return name;
}

/** Whether `name` is `suffix` or a name under it. */
export function isUnder(name: string, suffix: string): boolean {
  return name === suffix || (name.endsWith(suffix) && name.charCodeAt(name.length - suffix.length - 1) === 0x2e);
}
