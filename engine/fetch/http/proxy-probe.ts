/**
 * Whether the egress proxy still takes connections: asked when a plain-http request's connection to it
 * closed before any answer. A proxy that lost the host answers 502, but a proxy that went away (restarting,
 * killed) drops every request it held, and some proxies pass a host's reset on; a new connection tells the
 * two apart: refused or unanswered, the proxy is gone (a local failure, no host blamed); taken, the drop
 * was the host's.
 */
import { connect } from "node:net";

/** How long a proxy has to take a new connection before it counts as gone (the fetcher's checks and a fetch node's own). */
export const PROXY_PROBE_MS = 1_000;

export function proxyListens(proxyUrl: string, timeoutMs = PROXY_PROBE_MS): Promise<boolean> {
  const url = new URL(proxyUrl);
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  // A bracketed IPv6 literal is given to connect without its brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (listens: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(listens);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
