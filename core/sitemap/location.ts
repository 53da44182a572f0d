/**
 * Which URLs a sitemap may list (sitemaps.org, "Sitemap file location" and "Sitemaps & Cross Submits").
 * A sitemap's location decides: one at `http://example.com/catalog/sitemap.xml` may list URLs that start
 * with `http://example.com/catalog/` and nothing else, so not another scheme, host or port, nor a parent
 * directory. A robots.txt that names a sitemap proves its host's owner stands behind it, wherever the
 * sitemap lives: such a sitemap may also list any URL of the robots.txt's own origin (a "grant",
 * `http://host1.example/`). A sitemap index may list only sitemaps of its own site (same origin); the
 * sitemaps it lists inherit the grants that made the index trusted. Strings here are normalized URLs.
 */
import { originOf } from "../url/index.ts";

/** The directory a sitemap speaks for: its URL up to the last `/` of its path, query dropped. */
export function sitemapDirectory(sitemapUrl: string): string {
  const query = sitemapUrl.indexOf("?");
  const path = query < 0 ? sitemapUrl : sitemapUrl.slice(0, query);
  const slash = path.lastIndexOf("/");
  const authority = path.indexOf("://") + 3;
  return slash < authority ? `${path}/` : path.slice(0, slash + 1);
}

/** The grant a robots.txt gives the sitemaps it names: its whole origin (`http://host:8080/`). */
export function robotsGrant(robotsUrl: string): string {
  return `${originOf(robotsUrl)}/`;
}

/** Whether an entry (a normalized URL) is under the sitemap's directory or one of its grants. */
export function entryAllowed(entryUrl: string, sitemapUrl: string, grants: readonly string[]): boolean {
  if (entryUrl.startsWith(sitemapDirectory(sitemapUrl))) return true;
  for (const grant of grants) if (entryUrl.startsWith(grant)) return true;
  return false;
}

/** Whether a sitemap an index lists is on the index's own site (scheme, host and port). */
export function sameSite(indexUrl: string, childUrl: string): boolean {
  return originOf(indexUrl) === originOf(childUrl);
}
