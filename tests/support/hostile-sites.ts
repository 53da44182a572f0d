/**
 * The test web's hosts for the hostile-URL end-to-end suites (embedded and cluster): a public site that
 * links to every URL of a hostile list and redirects to each (`/go/N`), and a host whose robots.txt
 * redirects into the internal network.
 */
import type { HostBehaviour } from "../testweb/index.ts";
import { INTERNAL_ADDRESS, type HostileUrl } from "./hostile-urls.ts";

/** A Location header carries bytes, not text: non-ASCII goes percent-encoded, which the URL parser decodes in a host. */
export function locationOf(url: string): string {
  return url.replace(/[^\x20-\x7e]/g, encodeURIComponent);
}

/** `/` links to every hostile URL and to `/go/N`, which redirects (302) to hostile URL N. */
export function linkingSite(hostile: readonly HostileUrl[]): HostBehaviour {
  return {
    description: "a public site whose links and redirects point inside",
    robots: { kind: "rules", text: "User-agent: *\nAllow: /\n" },
    serve(_req, res, ctx) {
      const go = /^\/go\/(\d+)$/.exec(ctx.path);
      if (go && hostile[Number(go[1])]) {
        res.writeHead(302, { location: locationOf(hostile[Number(go[1])]!.url) });
        return void res.end();
      }
      if (ctx.path !== "/") {
        res.writeHead(404);
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><title>links</title>${hostile.map((u, i) => `<a href="${u.url}">${i}</a> <a href="/go/${i}">go ${i}</a>`).join("\n")}`,
      );
    },
  };
}

/** A host whose robots.txt redirects (301) into the internal network; its pages must never be fetched. */
export function robotsInside(internalPort: number): HostBehaviour {
  return {
    description: "robots.txt redirects to the internal network",
    robots: { kind: "allow-all", why: "never readable" },
    servesRobots: true,
    serve(_req, res, ctx) {
      if (ctx.path === "/robots.txt") {
        res.writeHead(301, { location: `http://${INTERNAL_ADDRESS}:${internalPort}/robots.txt` });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>must not be fetched</title>");
    },
  };
}
