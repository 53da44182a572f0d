/**
 * The normal hosts `site{N}.test`: their robots.txt, which paths exist, which links each page carries and
 * the HTML that carries them. Links are computed first, as canonical URLs plus the href spelling used on
 * the page, and the HTML is rendered from them; the expected-set BFS calls `siteLinks` directly, so what
 * the server serves and what the tests expect come from the same function of (seed, host, path).
 */
import { hash32, pick, rng } from "./random.ts";
import { phrase, type ProsePool } from "./text.ts";
import type { SiteShape } from "./types.ts";

/** Served by every normal host: a foreign group to skip, an Allow that beats a shorter Disallow, a `$`. */
export const SITE_ROBOTS = `# robots.txt of a synthetic test-web host
User-agent: evilbot
Disallow: /

User-agent: *
Allow: /private/public-notes
Disallow: /private/
Disallow: /*.pdf$
`;

const SITE_HOST = /^site(\d+)\.test$/;

/** The index of a normal host name within `shape`, or -1. */
export function siteIndex(shape: SiteShape, host: string): number {
  const m = SITE_HOST.exec(host);
  if (!m) return -1;
  const n = Number(m[1]);
  // "site01.test" is a different host from "site1.test"; only the canonical spelling exists.
  return String(n) === m[1] && n < shape.hosts ? n : -1;
}

export function siteHost(n: number): string {
  return `site${n}.test`;
}

export type SitePathKind = "home" | "page" | "notes" | "private" | "pdf";

/** What a path of a normal host is, ignoring the query (tracking parameters do not change the page). */
export function sitePathKind(shape: SiteShape, path: string): SitePathKind | undefined {
  const q = path.indexOf("?");
  const p = q < 0 ? path : path.slice(0, q);
  if (p === "/") return "home";
  if (p === "/private/public-notes") return "notes";
  let m = /^\/page\/(\d+)$/.exec(p);
  if (m && String(Number(m[1])) === m[1] && Number(m[1]) < shape.pagesPerHost) return "page";
  m = /^\/private\/(\d+)$/.exec(p);
  if (m) return "private";
  m = /^\/docs\/(\d+)\.pdf$/.exec(p);
  if (m) return "pdf";
  return undefined;
}

export interface SiteLink {
  /** Canonical absolute URL (`http://host/path`, or `http://host:port/path` with `SiteShape.port`) the href resolves and normalises to. */
  url: string;
  /** The href as written on the page. */
  href: string;
  /** True for the bait links robots.txt disallows. */
  bait: boolean;
}

/**
 * The links of one page. About 1 in 10 generated links leaves the host; about 1 in 5 same-host links is
 * spelled unusually (absolute, fragment, upper-case scheme and host with `:80`, tracking parameters,
 * `../`) so that only a crawler that resolves and normalises as ARCHITECTURE.md says lands on the
 * canonical URL. Pages also carry bait links that robots.txt disallows.
 */
export function siteLinks(shape: SiteShape, host: string, path: string): SiteLink[] {
  const kind = sitePathKind(shape, path);
  if (kind === undefined || kind === "pdf") return [];
  const at = origin(shape);
  if (kind === "private") return [{ url: `${at(host)}/`, href: "/", bait: false }];
  const self = siteIndex(shape, host);
  const r = rng(hash32(shape.seed, host, path, "links"));
  const links: SiteLink[] = [{ url: `${at(host)}/`, href: "/", bait: false }];
  for (let i = 0; i < shape.linksPerPage; i++) {
    if (shape.hosts > 1 && r() < 0.1) {
      let other = pick(r, shape.hosts - 1);
      if (other >= self) other++;
      const h = siteHost(other);
      const p = r() < 0.2 ? "/" : `/page/${pick(r, shape.pagesPerHost)}`;
      links.push({ url: `${at(h)}${p}`, href: `${at(h)}${p}`, bait: false });
      continue;
    }
    const k = pick(r, shape.pagesPerHost);
    const p = `/page/${k}`;
    links.push({ url: `${at(host)}${p}`, href: spell(r(), host, shape.port ?? 80, p, k), bait: false });
  }
  const h = hash32(shape.seed, host, path, "bait");
  if (kind === "home") {
    links.push({ url: `${at(host)}/private/public-notes`, href: "/private/public-notes", bait: false });
    links.push({ url: `${at(host)}/private/0`, href: "/private/0", bait: true });
  }
  if (h % 3 === 0) {
    const p = `/private/${h % 97}`;
    links.push({ url: `${at(host)}${p}`, href: p, bait: true });
  }
  if (h % 4 === 1) {
    const p = `/docs/${h % 89}.pdf`;
    links.push({ url: `${at(host)}${p}`, href: p, bait: true });
  }
  return links;
}

/**
 * `http://host`, with `:port` when the hosts are served on a port of their own (`SiteShape.port`): absolute
 * links must then carry it, or a crawler that dials the names itself would knock on port 80.
 */
function origin(shape: SiteShape): (host: string) => string {
  return shape.port === undefined ? (host) => `http://${host}` : (host) => `http://${host}:${shape.port}`;
}

function spell(x: number, host: string, port: number, path: string, k: number): string {
  if (x < 0.8) return path;
  if (x < 0.84) return `http://${host}${port === 80 ? "" : `:${port}`}${path}`;
  if (x < 0.88) return `${path}#part-${k % 7}`;
  if (x < 0.92) return `HTTP://${host.toUpperCase()}:${port}${path}`;
  if (x < 0.96) return `${path}?utm_source=testweb&amp;utm_medium=link`; // an entity the parser must decode
  return `..${path}`; // from "/" or "/page/N" this resolves to the same absolute path
}

export interface SitePage {
  status: number;
  contentType: string;
  body: string;
}

/** Renders a page of a normal host; unknown paths are a small 404 page. */
export function sitePage(shape: SiteShape, pool: ProsePool, host: string, path: string): SitePage {
  const kind = sitePathKind(shape, path);
  if (kind === undefined) {
    return { status: 404, contentType: "text/html; charset=utf-8", body: "<!doctype html><title>404</title><p>No such page.</p>\n" };
  }
  if (kind === "pdf") return { status: 200, contentType: "application/pdf", body: `%PDF-1.4\n% bait document ${path}\n%%EOF\n` };
  const links = siteLinks(shape, host, path);
  const r = rng(hash32(shape.seed, host, path, "text"));
  const title = `${host} ${path} ${phrase(r, pool.words, 3)}`;
  const parts: string[] = [
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\n<body>\n`,
    `<nav><a href="${links[0]?.href ?? "/"}">Home</a></nav>\n<h1>${title}</h1>\n`,
    `<p class="serial">Page ${path} of ${host}, serial ${hash32(shape.seed, host, path)}.</p>\n`,
  ];
  let size = parts.reduce((n, s) => n + s.length, 0);
  const tail = "</body></html>\n";
  const budget = Math.max(0, shape.pageBytes - tail.length);
  // Spread the links over the paragraphs, as on a real article page, rather than one block of links.
  let next = 1;
  const perParagraph = Math.max(1, Math.ceil((links.length - 1) / Math.max(1, Math.floor(budget / 900))));
  while (size < budget) {
    const para = pool.paragraphs[pick(r, pool.paragraphs.length)] ?? "";
    parts.push(para);
    size += para.length;
    for (let i = 0; i < perParagraph && next < links.length && size < budget; i++, next++) {
      const a = anchor(links[next]!, phrase(r, pool.words, 2));
      parts.push(a);
      size += a.length;
    }
  }
  if (next < links.length) {
    parts.push("<ul>\n");
    for (; next < links.length; next++) parts.push(`<li>${anchor(links[next]!, phrase(r, pool.words, 2))}</li>\n`);
    parts.push("</ul>\n");
  }
  parts.push(tail);
  return { status: 200, contentType: "text/html; charset=utf-8", body: parts.join("") };
}

function anchor(link: SiteLink, text: string): string {
  return `<p><a href="${link.href}">${text}</a></p>\n`;
}
