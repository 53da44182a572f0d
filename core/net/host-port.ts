/**
 * `host:port` as every process writes it in its settings and reports it in logs and node records: a name
 * or IPv4 address, or an IPv6 address in brackets (`[::1]:7400`), then a port from 0 to 65535 (0 asks
 * the system for a free one). One parser and one formatter, so the listen settings, the servers that bind
 * them and the addresses they report agree on the brackets.
 */

export interface HostPort {
  /** The host without brackets: `127.0.0.1`, `::1`, `node-1.internal`. */
  readonly host: string;
  readonly port: number;
}

const HOST_PORT = /^(?:\[([0-9a-fA-F:.]+(?:%[\w.-]+)?)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/** Reads `host:port` or `[v6]:port`; undefined when it is neither or the port is above 65535. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = HOST_PORT.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}

/** Writes `host:port`, putting an IPv6 host (one with a colon) in brackets. */
export function formatHostPort(host: string, port: number): string {
  return `${formatHost(host)}:${port}`;
}

/** The host as it stands before `:port` or in a URL: an IPv6 address in brackets, anything else as is. */
export function formatHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
