/**
 * `nofollow.test`: the three ways a page tells a crawler not to follow links — `rel="nofollow"` on a link
 * (also as one token among others, in mixed case), `<meta name="robots" content="nofollow">`, and the
 * `X-Robots-Tag: noindex, nofollow` header — next to a `noindex`-only page whose links must still be
 * followed. The targets of the forbidden links exist, so following them shows up in the request log.
 */
import type { HostBehaviour } from "../types.ts";
import { HTML, linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

export function nofollowHosts(): Record<string, HostBehaviour> {
  const leaf = (name: string) => page(name, linkList(["/"]));
  return {
    "nofollow.test": routedHost({
      description:
        "`rel=nofollow` links, a page with `<meta name=robots content=nofollow>`, one with `X-Robots-Tag: noindex, nofollow`, one with `noindex` only",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page(
          "nofollow",
          `<p><a href="/followed">followed</a></p>
<p><a rel="nofollow" href="/nf/rel">rel=nofollow</a></p>
<p><a href="/nf/rel-mixed" REL="external NoFollow">rel with several tokens</a></p>
${linkList(["/meta-nofollow", "/header-nofollow", "/meta-noindex"])}`,
        ),
        "/followed": leaf("followed"),
        "/meta-nofollow": page("meta nofollow", linkList(["/nf/meta"]), '<meta name="robots" content="nofollow">'),
        "/header-nofollow": (_q, res) =>
          send(res, 200, page("header nofollow", linkList(["/nf/header"])), HTML, { "x-robots-tag": "noindex, nofollow" }),
        "/meta-noindex": page("meta noindex", linkList(["/from-noindex"]), '<META NAME="ROBOTS" CONTENT="NOINDEX">'),
        "/from-noindex": leaf("from noindex"),
        "/nf/rel": leaf("nf rel"),
        "/nf/rel-mixed": leaf("nf rel mixed"),
        "/nf/meta": leaf("nf meta"),
        "/nf/header": leaf("nf header"),
      },
      mustFetch: ["/", "/followed", "/meta-nofollow", "/header-nofollow", "/meta-noindex", "/from-noindex"],
      mustNotFetch: ["/nf/rel", "/nf/rel-mixed", "/nf/meta", "/nf/header"],
    }),
  };
}
