/**
 * The host key of a normalized URL: its host with the port when the port is not the scheme's default
 * (`example.com`, `example.com:8080`). Politeness, robots.txt and partitions are all per host key, since
 * RFC 9309 scopes robots.txt to scheme, host and port. Works on the normalized string without parsing it
 * again, which matters on the hot path (every discovered link).
 */
export function hostKeyOf(normalizedUrl: string): string {
  const start = normalizedUrl.indexOf("://") + 3;
  let end = normalizedUrl.indexOf("/", start);
  if (end < 0) end = normalizedUrl.length;
  const authority = normalizedUrl.slice(start, end);
  const at = authority.lastIndexOf("@");
  return at >= 0 ? authority.slice(at + 1) : authority;
}

/** The origin (`scheme://hostkey`) of a normalized URL, e.g. for its robots.txt address. */
export function originOf(normalizedUrl: string): string {
  const scheme = normalizedUrl.slice(0, normalizedUrl.indexOf("://"));
  return `${scheme}://${hostKeyOf(normalizedUrl)}`;
}
