/**
 * Hosts that push back: `ratelimit.test` answers its first few page requests 429 with `Retry-After: 3`
 * (seconds), `unavailable.test` answers its first page request 503 with Retry-After as an HTTP date.
 * The counters live in the behaviour, which is built per test web, so the sequence is deterministic for
 * a given order of requests. robots.txt is not counted and never throttled: the point is the page path.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

export const RATELIMIT_COUNT = 2;
export const RATELIMIT_RETRY_AFTER_S = 3;
export const UNAVAILABLE_COUNT = 1;
export const UNAVAILABLE_RETRY_AFTER_S = 3;

const PAGES = {
  "/": page("home", linkList(["/page/1", "/page/2"])),
  "/page/1": page("one", linkList(["/"])),
  "/page/2": page("two", linkList(["/"])),
};

export function throttleHosts(): Record<string, HostBehaviour> {
  let limited = 0;
  let unavailable = 0;
  const ratelimit = routedHost({
    description: `the first ${RATELIMIT_COUNT} page requests get 429 with \`Retry-After: ${RATELIMIT_RETRY_AFTER_S}\`, then 200`,
    robots: PLAIN_ROBOTS,
    routes: PAGES,
    mustFetch: Object.keys(PAGES),
  });
  const down = routedHost({
    description: `the first ${UNAVAILABLE_COUNT} page request gets 503 with Retry-After as an HTTP date ${UNAVAILABLE_RETRY_AFTER_S} s ahead, then 200`,
    robots: PLAIN_ROBOTS,
    routes: PAGES,
    mustFetch: Object.keys(PAGES),
  });
  return {
    "ratelimit.test": {
      ...ratelimit,
      serve(req, res, ctx) {
        if (limited < RATELIMIT_COUNT) {
          limited++;
          send(res, 429, "<p>Too many requests.</p>\n", undefined, {
            "retry-after": String(RATELIMIT_RETRY_AFTER_S),
            "content-type": "text/html; charset=utf-8",
          });
          return;
        }
        ratelimit.serve(req, res, ctx);
      },
    },
    "unavailable.test": {
      ...down,
      serve(req, res, ctx) {
        if (unavailable < UNAVAILABLE_COUNT) {
          unavailable++;
          // HTTP dates have whole seconds; round up so the wait is never shorter than promised.
          const until = Math.ceil((Date.now() + UNAVAILABLE_RETRY_AFTER_S * 1000) / 1000) * 1000;
          send(res, 503, "<p>Down for maintenance.</p>\n", undefined, {
            "retry-after": new Date(until).toUTCString(),
            "content-type": "text/html; charset=utf-8",
          });
          return;
        }
        down.serve(req, res, ctx);
      },
    },
  };
}
