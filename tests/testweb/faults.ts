/**
 * A web with trouble in it: some of the normal hosts `site{N}.test` misbehave, as on the real web, so a
 * crawl of many hosts meets slow answers, errors, throttling, redirects and a robots.txt that cannot be
 * read, all at once and while most hosts answer at full speed (the benchmark's politeness run and the
 * e2e test of exact gaps use it). Which host misbehaves is a pure function of the seed: hosts are ordered
 * by a hash and each share takes the next `max(1, round(share × hosts))` of them, so even a small web has
 * at least one host of every kind asked for. A troubled host serves the same pages and links as a normal
 * one, except:
 *
 *   failing      about a third of its pages answer 500 (always), another third 429 with `Retry-After: 1`
 *                on their first request and 200 after
 *   slow         every response, robots.txt included, starts after `slowMs`
 *   robots503    robots.txt answers 503: nothing else may be fetched (RFC 9309 "unreachable")
 *   redirecting  about a quarter of its pages answer 301 (or 302) to another page of the same host
 */
import type { ServerResponse } from "node:http";
import { hash32 } from "./random.ts";
import { SITE_ROBOTS, siteHost } from "./site.ts";
import { send } from "./special/respond.ts";
import type { HostBehaviour, SiteShape } from "./types.ts";

export interface FaultShares {
  /** Share of hosts answering 500 or 429 on some pages. */
  failing?: number;
  /** Share of hosts answering everything after `slowMs`. */
  slow?: number;
  /** Delay of a slow host's every response. Default 3,000 ms. */
  slowMs?: number;
  /** Share of hosts whose robots.txt answers 503. */
  robots503?: number;
  /** Share of hosts redirecting some pages to others of the same host. */
  redirecting?: number;
}

export type FaultKind = "failing" | "slow" | "robots503" | "redirecting";

export const FAULT_SLOW_MS = 3000;
export const FAULT_RETRY_AFTER_S = 1;

/** Which normal hosts get which fault: every host of `shape` not in the map is a normal host. */
export function faultyHosts(shape: SiteShape, shares: FaultShares): Map<string, FaultKind> {
  const order = Array.from({ length: shape.hosts }, (_, i) => siteHost(i)).sort(
    (a, b) => hash32(shape.seed, a, "fault") - hash32(shape.seed, b, "fault") || a.localeCompare(b),
  );
  const out = new Map<string, FaultKind>();
  let next = 0;
  for (const kind of ["failing", "slow", "robots503", "redirecting"] as const) {
    const share = shares[kind] ?? 0;
    if (share <= 0) continue;
    const n = Math.max(1, Math.round(share * shape.hosts));
    for (let i = 0; i < n && next < order.length; i++) out.set(order[next++]!, kind);
  }
  return out;
}

/**
 * The behaviour of a troubled host, built on `normal` (the generated site). One instance per kind serves
 * every host of that kind; the 429 bookkeeping is per test web, so a page is throttled once.
 */
export function faultBehaviour(kind: FaultKind, normal: HostBehaviour, shape: SiteShape, shares: FaultShares): HostBehaviour {
  switch (kind) {
    case "failing": {
      const throttled = new Set<string>();
      return {
        description: "about a third of the pages answer 500, another third 429 (Retry-After: 1) the first time",
        robots: normal.robots,
        serve(req, res, ctx) {
          const which = pageHash(shape, ctx.host, ctx.path) % 3;
          if (which === 0) return send(res, 500, "<p>Internal error.</p>\n");
          if (which === 1 && !throttled.has(`${ctx.host}${ctx.path}`)) {
            throttled.add(`${ctx.host}${ctx.path}`);
            return send(res, 429, "<p>Slow down.</p>\n", undefined, { "retry-after": String(FAULT_RETRY_AFTER_S) });
          }
          normal.serve(req, res, ctx);
        },
      };
    }
    case "slow": {
      const delay = shares.slowMs ?? FAULT_SLOW_MS;
      return {
        description: `every response, robots.txt included, starts after ${delay} ms`,
        robots: normal.robots,
        servesRobots: true,
        serve(req, res, ctx) {
          const timer = setTimeout(() => {
            if (ctx.path === "/robots.txt") send(res, 200, SITE_ROBOTS, "text/plain; charset=utf-8");
            else normal.serve(req, res, ctx);
          }, delay);
          res.on("close", () => clearTimeout(timer));
        },
      };
    }
    case "robots503":
      return {
        description: "robots.txt answers 503: nothing else may be fetched",
        robots: { kind: "disallow-all", why: "robots.txt answers 503" },
        servesRobots: true,
        serve(req, res, ctx) {
          if (ctx.path === "/robots.txt") return send(res, 503, "busy\n", "text/plain");
          normal.serve(req, res, ctx);
        },
      };
    case "redirecting":
      return {
        description: "about a quarter of the pages redirect (301 or 302) to another page of the host",
        robots: normal.robots,
        serve(req, res, ctx) {
          const m = /^\/page\/(\d+)$/.exec(ctx.path);
          const h = pageHash(shape, ctx.host, ctx.path);
          if (m && h % 4 === 0) return redirectTo(res, h % 8 === 0 ? 301 : 302, `/page/${(Number(m[1]) + 1) % shape.pagesPerHost}`);
          normal.serve(req, res, ctx);
        },
      };
  }
}

function pageHash(shape: SiteShape, host: string, path: string): number {
  return hash32(shape.seed, host, path, "fault-page");
}

function redirectTo(res: ServerResponse, status: number, location: string): void {
  send(res, status, `<a href="${location}">moved</a>\n`, undefined, { location });
}
