/**
 * The normal hosts as one HostBehaviour: robots.txt from SITE_ROBOTS, pages from the generator in
 * site.ts. One instance serves every `site{N}.test`, since the host is part of the generator's input.
 */
import type { ServerResponse } from "node:http";
import { SITE_ROBOTS, sitePage } from "./site.ts";
import type { ProsePool } from "./text.ts";
import type { HostBehaviour, SiteShape } from "./types.ts";

export function siteBehaviour(shape: SiteShape, pool: ProsePool): HostBehaviour {
  return {
    description: "generated pages `/`, `/page/K`; robots.txt disallows `/private/` (except `/private/public-notes`) and `/*.pdf$`",
    robots: { kind: "rules", text: SITE_ROBOTS },
    serve(_req, res: ServerResponse, ctx) {
      const p = sitePage(shape, pool, ctx.host, ctx.path);
      const body = Buffer.from(p.body);
      res.statusCode = p.status;
      res.setHeader("content-type", p.contentType);
      res.setHeader("content-length", body.byteLength);
      res.end(body);
    },
  };
}
