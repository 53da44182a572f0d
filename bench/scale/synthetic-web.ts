/**
 * The synthetic web the scale bench crawls without a network: `hosts` hosts named `www.siteN.test`, each an
 * endless tree of pages, and a fetcher that answers every task at once. Every host's robots.txt is a 404
 * (allow-all, RFC 9309 2.3.1.3) and so is its probed /sitemap.xml; every page is a 200 of `PAGE_BYTES` with
 * `links` links, built from the page's number alone, so nothing about the web is held in memory:
 *
 *   - `cross` (about 10 %) lead to other hosts: the first to a home page (a seed, so always "maybe seen"
 *     and confirmed as home pages are), the others to a page of that host's menu (new until that host's
 *     home page was read);
 *   - `fresh` lead to the page's children in the host's tree (page j's children are j*fresh+1 ..
 *     j*fresh+fresh): new URLs;
 *   - the rest are the site's menu: the home page and its children 1..fresh, seen once the home page was
 *     read (on the home page itself they repeat its own children, as a menu does).
 *
 * Paths look like real ones (`/news/kovabe-tirul-1234`, about 55 characters a URL with the host) and hold
 * one run of digits, so the URL-pattern tracker leaves them alone; with `dated` > 0 that share of paths is
 * dated (`/2026/05/kovabe-tirul-1234`), which the tracker follows as trap-prone families, one per URL.
 */
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";

/** Bytes a page "stores" (what the crawl bench's test web serves). */
const PAGE_BYTES = 25_000;
const SECTIONS = ["news", "products", "blog", "docs", "about", "shop", "forum", "help"];
const SYLLABLES = ["ka", "ro", "ti", "ve", "mu", "sa", "ne", "lo", "pi", "da", "gu", "fe", "bi", "zo", "ha", "ru"];

export interface WebShape {
  hosts: number;
  /** Links on every page. */
  links: number;
  /** Share of a page's links that lead to other hosts. */
  cross: number;
  /** Links to new pages (the page's children) on every page. */
  fresh: number;
  /** Share of paths that are dated (two more digit runs: trap-prone for the URL-pattern tracker). */
  dated: number;
  /** How long every fetch takes on the frontier's clock (it sets the host's gap: 10 x this, at least the minimum). */
  fetchMs: number;
  /** Pages report their links count but hand none over: dispatch without the cost of admitting links. */
  bareResults: boolean;
}

/** A 32-bit mix of two numbers (deterministic choices without a random generator). */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

function word(h: number): string {
  let out = "";
  for (let i = 0; i < 3; i++) out += SYLLABLES[(h >>> (i * 4)) & 15];
  return out;
}

export function hostName(h: number): string {
  return `www.site${h}.test`;
}

/** The normalized URL of page `j` of host `h` (0 is the home page). */
export function pageUrl(shape: WebShape, h: number, j: number): string {
  if (j === 0) return `http://${hostName(h)}/`;
  const r = mix(h, j);
  const slug = `${word(r)}-${word(r >>> 12)}-${j}`;
  if ((r % 1000) / 1000 < shape.dated) return `http://${hostName(h)}/20${20 + (r % 7)}/${String(1 + (r % 12)).padStart(2, "0")}/${slug}`;
  return `http://${hostName(h)}/${SECTIONS[r & 7]}/${slug}`;
}

/** The host and page numbers of a URL `pageUrl` made. */
export function parsePage(url: string): { h: number; j: number } {
  const start = url.indexOf("www.site") + 8;
  const h = Number.parseInt(url.slice(start, url.indexOf(".", start)), 10);
  const dash = url.lastIndexOf("-");
  return { h, j: dash < 0 || url.endsWith("/") ? 0 : Number.parseInt(url.slice(dash + 1), 10) };
}

/** Links from a seed to page `j` of its host's tree (its depth). */
export function depthOf(fresh: number, j: number): number {
  let d = 0;
  for (let k = j; k > 0; k = Math.floor((k - 1) / fresh)) d++;
  return d;
}

/** The seed of host `h`: its home page. */
export function seedOf(shape: WebShape, h: number): DiscoveredUrl {
  return { url: pageUrl(shape, h, 0), host: hostName(h), depth: 0, redirectHops: 0 };
}

/** The links on page `j` of host `h`, appended to `out` (the module comment says which). */
export function linksOf(shape: WebShape, h: number, j: number, depth: number, out: DiscoveredUrl[]): void {
  const source = pageUrl(shape, h, j);
  const cross = Math.min(shape.links, Math.round(shape.links * shape.cross));
  const fresh = Math.min(shape.fresh, shape.links - cross);
  const link = (host: number, page: number, d: number): DiscoveredUrl => ({
    url: pageUrl(shape, host, page),
    host: hostName(host),
    depth: d,
    redirectHops: 0,
    sourceUrl: source,
  });
  for (let k = 0; k < cross; k++) {
    // Never the page's own host: (h + 1 + x mod (hosts - 1)) mod hosts.
    const other = shape.hosts > 1 ? (h + 1 + (mix(h * 31 + k, j) % (shape.hosts - 1))) % shape.hosts : h;
    out.push(link(other, k === 0 ? 0 : 1 + ((j + k) % Math.max(1, shape.fresh)), depth + 1));
  }
  for (let k = 1; k <= fresh; k++) out.push(link(h, j * shape.fresh + k, depth + 1));
  const menu = shape.links - cross - fresh;
  for (let k = 0; k < menu; k++) {
    const page = k === 0 || shape.fresh === 0 ? 0 : 1 + ((k - 1) % shape.fresh);
    out.push(link(h, page, depth + 1));
  }
}

/** Kinds of task the fetcher answered, and the links its pages carried. */
export interface FetchTally {
  robots: number;
  sitemap: number;
  page: number;
  other: number;
  links: number;
}

/** Answers a task at once, at the frontier's time `now`: what a fetch node would report for it. */
export function answer(shape: WebShape, task: FetchTask, now: number, tally: FetchTally): { result: FetchResult; links: DiscoveredUrl[] } {
  const base = {
    taskId: task.taskId,
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    startedAt: now,
    endedAt: now + shape.fetchMs,
  };
  if (task.kind === "robots") {
    tally.robots++;
    const result: FetchResult = { ...base, kind: "response", status: 404, linksFound: 0, bytes: 0, robots: { verdict: "allow-all" } };
    return { result, links: [] };
  }
  if (task.kind !== "page") {
    // The probed /sitemap.xml (and any media file): absent.
    if (task.kind === "sitemap") tally.sitemap++;
    else tally.other++;
    return { result: { ...base, kind: "response", status: 404, linksFound: 0, bytes: 0 }, links: [] };
  }
  tally.page++;
  const { h, j } = parsePage(task.url);
  const links: DiscoveredUrl[] = [];
  if (!shape.bareResults) linksOf(shape, h, j, task.depth, links);
  tally.links += links.length;
  const r = mix(h, j);
  const fingerprint = `${r.toString(16).padStart(8, "0")}${mix(r, 1).toString(16).padStart(8, "0")}`.repeat(2);
  const result: FetchResult = { ...base, kind: "response", status: 200, linksFound: shape.links, bytes: PAGE_BYTES, fingerprint };
  return { result, links };
}
