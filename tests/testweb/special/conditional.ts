/**
 * `etag.test`: conditional GET. `/`, `/page/1` and `/page/2` never change; they carry a strong ETag and a
 * fixed Last-Modified and answer 304 to a matching If-None-Match (which wins, as RFC 9110 says) or to an
 * If-Modified-Since not older than Last-Modified. `/changing` changes on every full response: version n
 * has ETag `"vn"`, so a refetch with the previous ETag gets 200 and new content, deterministically.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { hash32 } from "../random.ts";
import type { HostBehaviour } from "../types.ts";
import { HTML, linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";

export const ETAG_LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT";

const STABLE: Record<string, string> = {
  "/": page("etag", linkList(["/page/1", "/page/2", "/changing"])),
  "/page/1": page("stable one", linkList(["/"])),
  "/page/2": page("stable two", linkList(["/"])),
};

/** The ETag `etag.test` sends for a stable path. */
export function stableEtag(path: string): string {
  return `"${hash32("etag", path).toString(16)}"`;
}

function notModified(req: IncomingMessage, etag: string, lastModified: string): boolean {
  const inm = req.headers["if-none-match"];
  if (inm !== undefined) {
    return inm.split(",").some((t) => {
      const tag = t.trim();
      return tag === "*" || tag === etag || tag === `W/${etag}`;
    });
  }
  const ims = req.headers["if-modified-since"];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && since >= Date.parse(lastModified);
}

function answer(req: IncomingMessage, res: ServerResponse, body: string, etag: string, lastModified: string): void {
  const validators = { etag, "last-modified": lastModified };
  if (notModified(req, etag, lastModified)) {
    res.statusCode = 304;
    for (const [k, v] of Object.entries(validators)) res.setHeader(k, v);
    res.end();
    return;
  }
  send(res, 200, body, HTML, validators);
}

export function conditionalHosts(): Record<string, HostBehaviour> {
  let version = 0;
  return {
    "etag.test": {
      description: 'ETag + Last-Modified; 304 on a match. `/changing` has a new version (ETag `"vN"`) at every full response',
      robots: PLAIN_ROBOTS,
      mustFetch: ["/", "/page/1", "/page/2", "/changing"],
      serve(req, res, ctx) {
        const stable = STABLE[ctx.path];
        if (stable !== undefined) {
          answer(req, res, stable, stableEtag(ctx.path), ETAG_LAST_MODIFIED);
          return;
        }
        if (ctx.path === "/changing") {
          // Every request sees a new version, so no validator the client holds can match: always 200.
          const next = version + 1;
          const etag = `"v${next}"`;
          const lastModified = new Date(Date.parse(ETAG_LAST_MODIFIED) + next * 86_400_000).toUTCString();
          version = next;
          send(res, 200, page(`changing v${next}`, `<p>Version ${next}.</p>\n${linkList(["/"])}`), HTML, {
            etag,
            "last-modified": lastModified,
          });
          return;
        }
        send(res, 404, "<p>Not found.</p>\n");
      },
    },
  };
}
