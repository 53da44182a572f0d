/**
 * `redirects.test`: a chain of four hops that ends well (`/r/1` … `/r/4` → `/final`, with 301, 302, 307
 * and 308 and Locations spelled absolute, root-relative and relative), a two-page loop, an eight-hop
 * chain that a crawler following at most 5 redirects must abandon, and a redirect to another host
 * (`landing.test`). Every hop is its own request, as ARCHITECTURE.md has the crawler re-queue each target.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, redirect } from "./respond.ts";
import { routedHost } from "./routes.ts";

export const LONG_CHAIN = 8;

export function redirectHosts(): Record<string, HostBehaviour> {
  const routes: Parameters<typeof routedHost>[0]["routes"] = {
    "/": page("redirects", linkList(["/r/1", "/loop/a", "/long/1", "/away"])),
    "/r/1": (_q, res, ctx) => redirect(res, 301, ctx.url("redirects.test", "/r/2")),
    "/r/2": (_q, res) => redirect(res, 302, "/r/3"),
    "/r/3": (_q, res) => redirect(res, 307, "4"), // relative to /r/3: /r/4
    "/r/4": (_q, res) => redirect(res, 308, "/final"),
    "/final": page("final", linkList(["/"])),
    "/loop/a": (_q, res) => redirect(res, 302, "/loop/b"),
    "/loop/b": (_q, res) => redirect(res, 302, "/loop/a"),
    "/long/end": page("end of the long chain", linkList(["/"])),
    "/away": (_q, res, ctx) => redirect(res, 302, ctx.url("landing.test", "/from-redirects")),
  };
  for (let i = 1; i <= LONG_CHAIN; i++) {
    const next = i === LONG_CHAIN ? "/long/end" : `/long/${i + 1}`;
    routes[`/long/${i}`] = (_q, res) => redirect(res, 301, next);
  }
  return {
    "redirects.test": routedHost({
      description:
        "`/r/1`→`/r/2`→`/r/3`→`/r/4`→`/final` (301, 302, 307, 308); `/loop/a`↔`/loop/b`; `/long/1`…`/long/8`→`/long/end` (too many hops); `/away`→`landing.test`",
      robots: PLAIN_ROBOTS,
      routes,
      // Following at most 5 redirects from /long/1 reaches /long/6 and stops there.
      mustFetch: ["/", "/r/1", "/r/2", "/r/3", "/r/4", "/final", "/loop/a", "/loop/b", "/long/1", "/long/6", "/away"],
      mustNotFetch: ["/long/7", "/long/8", "/long/end"],
    }),
    "landing.test": routedHost({
      description: "plain two-page host, the target of `redirects.test/away`",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("landing", linkList(["/from-redirects"])),
        "/from-redirects": page("landed", linkList(["/"])),
      },
      mustFetch: ["/", "/from-redirects"],
    }),
  };
}
