/**
 * A host whose home page is not answered the first time it is asked: the request is accepted and left
 * open until the client goes away, so whoever asked holds that task for as long as it lives. Every later
 * request for `/` gets a small page, anything else a 404 (its robots.txt names no sitemap, so the probe
 * for /sitemap.xml finds none). For tests of a fetch node killed mid-task: the task comes back to another
 * node, whose request is answered.
 */
import type { HostBehaviour } from "./types.ts";

export function homePageHeldOnce(): HostBehaviour {
  let asked = 0;
  return {
    description: "the first request for / is accepted and never answered; later ones get a page, other paths 404",
    robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
    serve(_req, res, ctx) {
      if (ctx.path !== "/") {
        res.writeHead(404, { "content-type": "text/html" });
        res.end("<!doctype html><title>404</title>");
        return;
      }
      if (asked++ === 0) return; // left open until the client goes away
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>held</title><p>answered at last</p>");
    },
  };
}
