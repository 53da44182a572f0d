/**
 * Which virtual host and path a request is for. A crawler using the test web as its forward proxy sends
 * the absolute form (`GET http://site12.test/page/3 HTTP/1.1`); a direct client sends the origin form with
 * a Host header. Both resolve to a lower-case host without port and the raw path-and-query, so the log
 * shows exactly what the crawler asked for.
 */

export interface Target {
  host: string;
  path: string;
  via: "proxy" | "direct";
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\//i;

export function parseTarget(requestTarget: string, hostHeader: string | undefined): Target | undefined {
  if (ABSOLUTE.test(requestTarget)) {
    const start = requestTarget.indexOf("//") + 2;
    let end = start;
    while (end < requestTarget.length && !"/?#".includes(requestTarget.charAt(end))) end++;
    const host = hostOf(requestTarget.slice(start, end));
    let path = requestTarget.slice(end);
    const hash = path.indexOf("#");
    if (hash >= 0) path = path.slice(0, hash);
    if (!path.startsWith("/")) path = `/${path}`;
    return host ? { host, path, via: "proxy" } : undefined;
  }
  const host = hostHeader === undefined ? "" : hostOf(hostHeader);
  if (!host || !requestTarget.startsWith("/")) return undefined;
  return { host, path: requestTarget, via: "direct" };
}

/** `User@Site3.Test:80` → `site3.test`; `[::1]:8080` → `[::1]`. */
function hostOf(authority: string): string {
  const at = authority.lastIndexOf("@");
  let h = at >= 0 ? authority.slice(at + 1) : authority;
  if (h.startsWith("[")) {
    const close = h.indexOf("]");
    h = close >= 0 ? h.slice(0, close + 1) : h;
  } else {
    const colon = h.indexOf(":");
    if (colon >= 0) h = h.slice(0, colon);
  }
  h = h.toLowerCase();
  // A trailing dot names the same host in DNS; the log should not split one host in two.
  return h.endsWith(".") ? h.slice(0, -1) : h;
}
