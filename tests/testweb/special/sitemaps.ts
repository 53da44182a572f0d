/**
 * Hosts whose sitemaps are the point (sitemaps.org protocol). Their home pages link nothing, so every
 * other page is reachable through a sitemap only: a crawler that does not read them, or reads them
 * wrongly, shows it in what it fetches.
 *
 * - `sitemap-robots.test`: robots.txt names an index (`/maps/index.xml`) and a sitemap on another host
 *   (`sitemap-store.test/maps/for-robots.xml`: a cross-submission). The index lists a plain sitemap, a
 *   gzip file and a sitemap on another site (ignored: an index lists only its own site's sitemaps). The
 *   sitemaps list pages with lastmod and priority, and entries that must be ignored: another host, a
 *   text that is no URL.
 * - `sitemap-store.test`: hosts the cross-submitted sitemap. Its entries on `sitemap-robots.test` are
 *   allowed by the robots.txt that named it; one on a third host and one outside its directory are not.
 * - `sitemap-probe.test`: robots.txt names no sitemap; `/sitemap.xml` exists (read with `--sitemaps probe`,
 *   the default).
 * - `sitemap-limits.test`: `/big.xml` lists 50,003 URLs (3 kept, 49,997 fillers, then 3 past the
 *   50,000-entry limit); `sitemap-huge.test`: `/huge.xml.gz` holds 52 MB of padding (one comment)
 *   between two entries (about 50 KB gzip-compressed): what is past either limit must never be fetched.
 * - `sitemap-lastmod.test` and `sitemap-stale.test`: their sitemaps list `/` with a lastmod of the moment
 *   the sitemap is served (so newer than the crawler's first visit) and of 2001 (older): the first home
 *   page is fetched again, the second is not.
 * - `sitemap-priority.test`: its sitemap lists `/low/1`, `/low/2` (priority 0.1) before `/high/1` (0.9):
 *   the high one is fetched first.
 */
import { gzipSync } from "node:zlib";
import type { ServerResponse } from "node:http";
import type { HostBehaviour } from "../types.ts";
import { page, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

const XML = "application/xml; charset=utf-8";
const NS = "http://www.sitemaps.org/schemas/sitemap/0.9";

/** Entries past the 50,000 limit in `/big.xml`, and the number of fillers before them. */
export const SITEMAP_BIG_KEPT = 3;
export const SITEMAP_BIG_FILLERS = 50_000 - SITEMAP_BIG_KEPT;
export const SITEMAP_BIG_BEYOND = 3;
/** Uncompressed padding of `/huge.xml.gz`, past the protocol's 50 MB. */
export const SITEMAP_HUGE_PADDING = 52 * 1024 * 1024;

interface UrlEntry {
  loc: string;
  lastmod?: string;
  priority?: string;
}

export function urlsetXml(entries: readonly UrlEntry[], padding = ""): string {
  const body = entries
    .map(
      (e) =>
        `  <url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}${e.priority ? `<priority>${e.priority}</priority>` : ""}</url>\n`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">\n${body}${padding}</urlset>\n`;
}

function indexXml(locs: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NS}">\n${locs.map((l) => `  <sitemap><loc>${l}</loc></sitemap>\n`).join("")}</sitemapindex>\n`;
}

const xml = (body: string | Uint8Array) => (_q: unknown, res: ServerResponse) => send(res, 200, body, XML);
/**
 * `/` plus each path as a plain page; each names its host and path, so no two pages of the test web are
 * the same bytes (an exact duplicate is not stored, and is not what these hosts are about).
 */
function pages(host: string, paths: readonly string[]): Record<string, string> {
  const plain = (path: string) => page(`${host}${path}`, "<p>Reached through a sitemap.</p>\n");
  return Object.fromEntries([
    ["/", page(`${host} home`, "<p>No links here: read the sitemaps.</p>\n")],
    ...paths.map((p) => [p, plain(p)]),
  ]);
}

export function sitemapHosts(): Record<string, HostBehaviour> {
  let moreGz: Buffer | undefined;
  let hugeGz: Buffer | undefined;
  let big: string | undefined;
  const robotsPages = ["/from-sitemap/1", "/from-sitemap/2", "/from-gzip/1", "/from-gzip/2", "/cross/1"];
  const limitsPages = [
    ...Array.from({ length: SITEMAP_BIG_KEPT }, (_, i) => `/big/keep/${i}`),
    ...Array.from({ length: SITEMAP_BIG_BEYOND }, (_, i) => `/big/beyond/${i}`),
  ];
  return {
    "sitemap-robots.test": routedHost({
      description:
        "robots.txt names an index and a sitemap on sitemap-store.test; the index lists a sitemap, a gzip sitemap and one on another site (ignored)",
      robots: {
        kind: "rules",
        text: "User-agent: *\nDisallow: /private/\n\nSitemap: http://sitemap-robots.test/maps/index.xml\nSitemap: http://sitemap-store.test/maps/for-robots.xml\n",
      },
      routes: {
        ...pages("sitemap-robots.test", [...robotsPages, "/private/listed"]),
        "/maps/index.xml": xml(
          indexXml([
            "http://sitemap-robots.test/maps/pages.xml",
            "http://sitemap-robots.test/maps/more.xml.gz",
            "http://elsewhere.test/maps/x.xml",
          ]),
        ),
        "/maps/pages.xml": xml(
          urlsetXml([
            { loc: "http://sitemap-robots.test/from-sitemap/1", lastmod: "2024-05-01", priority: "0.9" },
            { loc: "http://sitemap-robots.test/from-sitemap/2", lastmod: "2024-05-02T10:00:00+02:00" },
            { loc: "http://elsewhere.test/not-this-host" },
            { loc: "this is not a URL" },
            { loc: "http://sitemap-robots.test/private/listed" },
          ]),
        ),
        "/maps/more.xml.gz": (_q, res) => {
          moreGz ??= gzipSync(
            urlsetXml([
              { loc: "http://sitemap-robots.test/from-gzip/1" },
              { loc: "http://sitemap-robots.test/from-gzip/2", priority: "0.2" },
            ]),
          );
          send(res, 200, moreGz, "application/x-gzip");
        },
      },
      mustFetch: ["/", "/maps/index.xml", "/maps/pages.xml", "/maps/more.xml.gz", ...robotsPages],
      mustNotFetch: ["/private/listed"],
    }),
    "sitemap-store.test": routedHost({
      description: "hosts the sitemap sitemap-robots.test's robots.txt names; its entries elsewhere are ignored",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
      routes: {
        ...pages("sitemap-store.test", ["/maps/own", "/outside"]),
        "/maps/for-robots.xml": xml(
          urlsetXml([
            { loc: "http://sitemap-robots.test/cross/1" },
            { loc: "http://sitemap-store.test/maps/own" },
            { loc: "http://sitemap-store.test/outside" },
            { loc: "http://third.test/x" },
          ]),
        ),
      },
      mustFetch: ["/maps/for-robots.xml", "/maps/own"],
      mustNotFetch: ["/outside"],
    }),
    "sitemap-probe.test": routedHost({
      description: "robots.txt names no sitemap; /sitemap.xml lists /probed/1 (read with --sitemaps probe, the default)",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
      routes: {
        ...pages("sitemap-probe.test", ["/probed/1"]),
        "/sitemap.xml": xml(urlsetXml([{ loc: "http://sitemap-probe.test/probed/1" }])),
      },
      mustFetch: ["/", "/sitemap.xml", "/probed/1"],
    }),
    "sitemap-limits.test": routedHost({
      description: "/big.xml lists 50,003 URLs: nothing past the protocol's 50,000 is taken",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\nSitemap: http://sitemap-limits.test/big.xml\n" },
      routes: {
        ...pages("sitemap-limits.test", limitsPages),
        "/big.xml": (_q, res) => {
          big ??= urlsetXml([
            ...Array.from({ length: SITEMAP_BIG_KEPT }, (_, i) => ({ loc: `http://sitemap-limits.test/big/keep/${i}` })),
            ...Array.from({ length: SITEMAP_BIG_FILLERS }, (_, i) => ({ loc: `http://sitemap-limits.test/big/filler/${i}` })),
            ...Array.from({ length: SITEMAP_BIG_BEYOND }, (_, i) => ({ loc: `http://sitemap-limits.test/big/beyond/${i}` })),
          ]);
          send(res, 200, big, XML);
        },
      },
      mustFetch: ["/big.xml", ...Array.from({ length: SITEMAP_BIG_KEPT }, (_, i) => `/big/keep/${i}`)],
      mustNotFetch: Array.from({ length: SITEMAP_BIG_BEYOND }, (_, i) => `/big/beyond/${i}`),
    }),
    "sitemap-huge.test": routedHost({
      description: "/huge.xml.gz is 52 MB uncompressed (a comment between two entries): nothing past the protocol's 50 MB is taken",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\nSitemap: http://sitemap-huge.test/huge.xml.gz\n" },
      routes: {
        ...pages("sitemap-huge.test", ["/huge/before", "/huge/after"]),
        "/huge.xml.gz": (_q, res) => {
          hugeGz ??= gzipSync(
            `<?xml version="1.0"?>\n<urlset xmlns="${NS}">\n<url><loc>http://sitemap-huge.test/huge/before</loc></url>\n<!--${" ".repeat(SITEMAP_HUGE_PADDING)}-->\n<url><loc>http://sitemap-huge.test/huge/after</loc></url>\n</urlset>\n`,
          );
          send(res, 200, hugeGz, "application/x-gzip");
        },
      },
      mustFetch: ["/huge.xml.gz", "/huge/before"],
      mustNotFetch: ["/huge/after"],
    }),
    "sitemap-lastmod.test": routedHost({
      description: "its sitemap lists / with a lastmod of the moment it is served: / is fetched again after the sitemap",
      robots: { kind: "rules", text: "User-agent: *\nSitemap: http://sitemap-lastmod.test/sitemap.xml\n" },
      routes: {
        ...pages("sitemap-lastmod.test", []),
        "/sitemap.xml": (_q, res) =>
          send(res, 200, urlsetXml([{ loc: "http://sitemap-lastmod.test/", lastmod: new Date().toISOString() }]), XML),
      },
      mustFetch: ["/", "/sitemap.xml"],
    }),
    "sitemap-stale.test": routedHost({
      description: "its sitemap lists / with a lastmod of 2001: / is not fetched again",
      robots: { kind: "rules", text: "User-agent: *\nSitemap: http://sitemap-stale.test/sitemap.xml\n" },
      routes: {
        ...pages("sitemap-stale.test", []),
        "/sitemap.xml": xml(urlsetXml([{ loc: "http://sitemap-stale.test/", lastmod: "2001-01-01" }])),
      },
      mustFetch: ["/", "/sitemap.xml"],
    }),
    "sitemap-priority.test": routedHost({
      description: "its sitemap lists /low/1, /low/2 (priority 0.1) before /high/1 (0.9): /high/1 is fetched first",
      robots: { kind: "rules", text: "User-agent: *\nSitemap: http://sitemap-priority.test/sitemap.xml\n" },
      routes: {
        ...pages("sitemap-priority.test", ["/low/1", "/low/2", "/high/1"]),
        "/sitemap.xml": xml(
          urlsetXml([
            { loc: "http://sitemap-priority.test/low/1", priority: "0.1" },
            { loc: "http://sitemap-priority.test/low/2", priority: "0.1" },
            { loc: "http://sitemap-priority.test/high/1", priority: "0.9" },
          ]),
        ),
      },
      mustFetch: ["/", "/sitemap.xml", "/low/1", "/low/2", "/high/1"],
    }),
  };
}
