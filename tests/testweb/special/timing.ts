/**
 * Hosts that are slow in three different ways: `slow.test` answers everything after 1.5 s (the
 * gap multiplier should stretch the crawler's gap), `drip.test` sends a response head and then one body
 * byte every 500 ms forever (only a whole-response timeout ends it), `hang.test` accepts the request and
 * never answers (only a response timeout ends it). Timers stop when the connection closes, so `close()`
 * of the test web leaves nothing running.
 */
import type { HostBehaviour } from "../types.ts";
import { HTML, linkList, page, PLAIN_ROBOTS, PLAIN_ROBOTS_TEXT, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

export const SLOW_MS = 1500;
export const DRIP_INTERVAL_MS = 500;

export function timingHosts(): Record<string, HostBehaviour> {
  const slowPages: Record<string, string> = {
    "/robots.txt": PLAIN_ROBOTS_TEXT,
    "/": page("slow home", linkList(["/a"])),
    "/a": page("slow a", linkList(["/"])),
  };
  const drip = '<!doctype html><html><body><p>drip drip drip</p><a href="/never">never</a></body></html>\n';
  return {
    "slow.test": {
      description: `every response, robots.txt included, starts after ${SLOW_MS} ms`,
      robots: PLAIN_ROBOTS,
      servesRobots: true,
      mustFetch: ["/", "/a"],
      serve(_req, res, ctx) {
        const body = slowPages[ctx.path];
        const type = ctx.path === "/robots.txt" ? "text/plain" : HTML;
        const timer = setTimeout(() => {
          if (body === undefined) send(res, 404, "<p>Not found.</p>\n");
          else send(res, 200, body, type);
        }, SLOW_MS);
        res.on("close", () => clearTimeout(timer));
      },
    },
    "drip.test": routedHost({
      description: `\`/\` sends 200 and then one body byte every ${DRIP_INTERVAL_MS} ms, forever`,
      robots: PLAIN_ROBOTS,
      routes: {
        "/": (_req, res) => {
          res.statusCode = 200;
          res.setHeader("content-type", HTML);
          res.flushHeaders();
          let i = 0;
          const timer = setInterval(() => {
            res.write(drip.charAt(i % drip.length));
            i++;
          }, DRIP_INTERVAL_MS);
          res.on("close", () => clearInterval(timer));
        },
      },
      mustFetch: ["/"],
      mustNotFetch: ["/never"],
    }),
    "hang.test": routedHost({
      description: "robots.txt is normal; every other request is accepted and never answered",
      robots: PLAIN_ROBOTS,
      routes: {},
      fallback: () => {
        // Deliberately nothing: the crawler's response timeout must end this request.
      },
      mustFetch: ["/"],
    }),
  };
}
