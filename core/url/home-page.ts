/**
 * Home-page detection on a normalized URL, used by the frontier to give a host's entry page the first
 * priority level (ARCHITECTURE.md, "Frontier node"). It reads the string directly: on a normalized URL the
 * first `/` after `scheme://` starts the path, because userinfo and host can hold no raw `/`.
 */

/**
 * True when the normalized URL's path is `/` and it has no query (`https://example.com/`). Expects the
 * output of `normalizeUrl`; anything else (a fragment, a non-URL) may answer false.
 */
export function isHomePage(normalizedUrl: string): boolean {
  const authority = normalizedUrl.indexOf("://");
  if (authority === -1) return false;
  const pathStart = normalizedUrl.indexOf("/", authority + 3);
  return pathStart === normalizedUrl.length - 1;
}
