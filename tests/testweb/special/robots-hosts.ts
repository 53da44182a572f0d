/**
 * Hosts whose robots.txt is the point: disallow everything, missing (404), failing (500), redirected,
 * with a Crawl-delay, and reset. Each has ordinary pages behind it so that a crawler which ignores the
 * answer visibly fetches something it should not.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, redirect, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

const AB = {
  "/": page("home", linkList(["/a", "/b"])),
  "/a": page("a", linkList(["/"])),
  "/b": page("b", linkList(["/"])),
};

export function robotsHosts(): Record<string, HostBehaviour> {
  return {
    "robots-disallow.test": routedHost({
      description: "robots.txt disallows `/` for every agent: only robots.txt may be fetched",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /\n" },
      routes: AB,
      mustNotFetch: ["/", "/a", "/b"],
    }),
    "robots-404.test": routedHost({
      description: "robots.txt answers 404: everything may be fetched",
      robots: { kind: "allow-all", why: "robots.txt answered 404" },
      routes: { ...AB, "/robots.txt": (_q, res) => send(res, 404, "not here\n", "text/plain") },
      mustFetch: ["/", "/a", "/b"],
    }),
    "robots-500.test": routedHost({
      description: "robots.txt answers 500: nothing else may be fetched",
      robots: { kind: "disallow-all", why: "robots.txt answered 500" },
      routes: { ...AB, "/robots.txt": (_q, res) => send(res, 500, "broken\n", "text/plain") },
      mustNotFetch: ["/", "/a", "/b"],
    }),
    "robots-redirect.test": routedHost({
      description: "robots.txt 301-redirects to `/robots-real.txt`, which disallows `/secret/`",
      robots: {
        kind: "rules",
        text: "User-agent: *\nDisallow: /secret/\n",
        paths: ["/robots.txt", "/robots-real.txt"],
      },
      routes: {
        "/robots.txt": (_q, res) => redirect(res, 301, "/robots-real.txt"),
        "/robots-real.txt": (_q, res) => send(res, 200, "User-agent: *\nDisallow: /secret/\n", "text/plain"),
        "/": page("home", linkList(["/open/1", "/secret/1"])),
        "/open/1": page("open", linkList(["/"])),
        "/secret/1": page("secret", linkList(["/"])),
      },
      mustFetch: ["/", "/open/1"],
      mustNotFetch: ["/secret/1"],
    }),
    "robots-delay.test": routedHost({
      description: "robots.txt says `Crawl-delay: 2`: requests at least 2 s apart",
      robots: { kind: "rules", text: "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n" },
      routes: {
        "/": page("home", linkList(["/page/1", "/page/2", "/page/3"])),
        "/page/1": page("one", linkList(["/"])),
        "/page/2": page("two", linkList(["/"])),
        "/page/3": page("three", linkList(["/"])),
      },
      mustFetch: ["/", "/page/1", "/page/2", "/page/3"],
    }),
    "robots-unreachable.test": routedHost({
      description: "the connection is reset (TCP RST) on robots.txt: nothing else may be fetched",
      robots: { kind: "disallow-all", why: "robots.txt connection was reset" },
      routes: { ...AB, "/robots.txt": (req) => req.socket.resetAndDestroy() },
      mustNotFetch: ["/", "/a", "/b"],
    }),
  };
}
