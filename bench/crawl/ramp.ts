/**
 * The crawl's first seconds, from the test web's log (issue 26, item 2): the window counts from the spawn,
 * so what start-up, the robots.txt burst and each host's first requests cost shows here and nowhere else.
 * Per second from the spawn: pages and robots.txt requests started; when the first page and the last
 * robots.txt request arrived; and per host, how long it lay idle after its robots.txt and after its second
 * request, and when its first page came. The politeness floor of each idle time is the gap (1 s here, or 10
 * x the fetch's duration as the crawler measured it): what lies above it is start-up overhead per host.
 */
import type { RequestRecord } from "../../tests/testweb/index.ts";

/** How many seconds from the spawn the per-second series covers. */
export const RAMP_SECONDS = 10;

export interface Quantiles {
  p50: number;
  p90: number;
}

export interface Ramp {
  /** Pages (completed 200s, robots.txt not counted) and robots.txt requests started in each second from the spawn. */
  pages: number[];
  robots: number[];
  /** The crawler's CPU seconds in each of those seconds (every thread). */
  cpuSeconds: number[];
  /** From the spawn to the arrival of the first page request and of the last robots.txt request, s. */
  firstPageSeconds: number;
  lastRobotsSeconds: number;
  /** Per host, from the end of its robots.txt to the arrival of its next request, ms. */
  idleAfterRobotsMs: Quantiles;
  /** Per host, from the end of its second request (a sitemap probe or its first page) to its third, ms. */
  idleAfterSecondMs: Quantiles;
  /** Per host, from the spawn to the arrival of its first page request, s. */
  hostFirstPageSeconds: Quantiles;
}

/** The ramp of a run whose window opened at `windowStart` (the test web's clock), given its CPU per second. */
export function rampOf(log: readonly RequestRecord[], windowStart: number, cpuSeconds: readonly number[]): Ramp {
  const pages = new Array<number>(RAMP_SECONDS).fill(0);
  const robots = new Array<number>(RAMP_SECONDS).fill(0);
  let firstPage = Number.POSITIVE_INFINITY;
  let lastRobots = 0;
  const seen = new Map<string, { requests: number; lastEnd: number; firstPage?: number }>();
  const afterRobots: number[] = [];
  const afterSecond: number[] = [];
  for (const r of log) {
    const at = r.startedAt - windowStart;
    const second = Math.floor(at / 1000);
    const isRobots = r.path === "/robots.txt";
    const isPage = !isRobots && r.status === 200 && r.completed;
    if (second >= 0 && second < RAMP_SECONDS) {
      if (isRobots) robots[second]!++;
      else if (isPage) pages[second]!++;
    }
    if (isRobots) lastRobots = Math.max(lastRobots, at);
    if (isPage) firstPage = Math.min(firstPage, at);
    const host = seen.get(r.host) ?? { requests: 0, lastEnd: Number.NaN };
    if (host.requests === 1) afterRobots.push(r.startedAt - host.lastEnd);
    if (host.requests === 2) afterSecond.push(r.startedAt - host.lastEnd);
    if (isPage && host.firstPage === undefined) host.firstPage = at;
    host.requests++;
    host.lastEnd = r.endedAt;
    seen.set(r.host, host);
  }
  const firstPages = [...seen.values()].flatMap((h) => (h.firstPage === undefined ? [] : [h.firstPage / 1000]));
  return {
    pages,
    robots,
    cpuSeconds: [...cpuSeconds],
    firstPageSeconds: Number.isFinite(firstPage) ? firstPage / 1000 : Number.NaN,
    lastRobotsSeconds: lastRobots / 1000,
    idleAfterRobotsMs: quantiles(afterRobots.filter(Number.isFinite), 0),
    idleAfterSecondMs: quantiles(afterSecond.filter(Number.isFinite), 0),
    hostFirstPageSeconds: quantiles(firstPages, 2),
  };
}

function quantiles(values: number[], digits: number): Quantiles {
  values.sort((a, b) => a - b);
  const at = (q: number) =>
    values.length === 0 ? 0 : Number(values[Math.min(values.length - 1, Math.floor(q * values.length))]!.toFixed(digits));
  return { p50: at(0.5), p90: at(0.9) };
}

/** The ramp as two lines of the detail block. */
export function rampLines(r: Ramp): string[] {
  const q = (x: Quantiles, unit: string) => `p50 ${x.p50} ${unit}, p90 ${x.p90} ${unit}`;
  return [
    `    first ${RAMP_SECONDS} s, per second: pages ${r.pages.join(" ")}; robots.txt ${r.robots.join(" ")}; CPU s ${r.cpuSeconds.map((c) => c.toFixed(2)).join(" ")}`,
    `    first page ${r.firstPageSeconds.toFixed(2)} s, last robots.txt ${r.lastRobotsSeconds.toFixed(2)} s after spawn; a host's first page ${q(r.hostFirstPageSeconds, "s")}; idle after robots.txt ${q(r.idleAfterRobotsMs, "ms")}, after its 2nd request ${q(r.idleAfterSecondMs, "ms")}`,
  ];
}
