/**
 * The pages a correct crawler fetches from the normal hosts, computed without a server: a breadth-first
 * walk from the seeds over the same link generator the server renders from, skipping what robots.txt
 * disallows. An e2e test compares the set of URLs its crawl fetched with `pages`, and checks that none of
 * `disallowed` was ever requested. Only normal hosts are walked (their links never leave them); special
 * hosts declare their expectations as `mustFetch` / `mustNotFetch` instead.
 */
import { isAllowed, parseRobots } from "./robots.ts";
import { SITE_ROBOTS, siteIndex, siteLinks } from "./site.ts";
import type { SiteShape } from "./types.ts";

export interface ExpectedOptions {
  /** Stop at this many links from a seed (seeds are depth 0). Default: no limit. */
  maxDepth?: number;
  /** Product token for robots.txt group selection; default the `*` group. */
  userAgent?: string;
}

export interface ExpectedPages {
  /** Canonical URLs (`http://site3.test/page/7`, `http://site3.test/`) of every page to fetch; robots.txt excluded. */
  pages: Set<string>;
  /** Link depth of each page from the nearest seed. */
  depth: Map<string, number>;
  /** URLs linked from fetched pages that robots.txt forbids: never to be requested. */
  disallowed: Set<string>;
  /** Hosts with at least one page to fetch. */
  hosts: Set<string>;
}

export function expectedPages(shape: SiteShape, seeds: readonly string[], opts: ExpectedOptions = {}): ExpectedPages {
  const group = parseRobots(SITE_ROBOTS, opts.userAgent);
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  const result: ExpectedPages = { pages: new Set(), depth: new Map(), disallowed: new Set(), hosts: new Set() };
  const queue: Array<{ url: string; host: string; path: string; depth: number }> = [];
  const seen = new Set<string>();
  const enqueue = (url: string, depth: number): void => {
    const u = new URL(url);
    if (seen.has(u.href)) return;
    seen.add(u.href);
    const host = u.hostname;
    if (siteIndex(shape, host) < 0) throw new Error(`expectedPages walks normal hosts only; got ${url}`);
    queue.push({ url: u.href, host, path: u.pathname + u.search, depth });
  };
  for (const s of seeds) enqueue(s, 0);
  for (let i = 0; i < queue.length; i++) {
    const item = queue[i]!;
    if (!isAllowed(group, item.path)) {
      result.disallowed.add(item.url);
      continue;
    }
    result.pages.add(item.url);
    result.depth.set(item.url, item.depth);
    result.hosts.add(item.host);
    if (item.depth >= maxDepth) continue;
    for (const link of siteLinks(shape, item.host, item.path)) enqueue(link.url, item.depth + 1);
  }
  return result;
}
