/**
 * Hosts that are broken on purpose. `errors.test` links pages that answer 404, 410, 403 and 500.
 * `malformed.test` serves a home page a browser would still render (unclosed tags, garbage bytes,
 * upper-case tags and attributes, entities, unquoted attributes, a `<base href>`, links inside
 * `<noscript>`, link-looking text inside `<script>` and a comment) and lists exactly which links a
 * correct HTML parser extracts from it, so a parser test and an e2e test can both compare against it.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

const MALFORMED_HOME = Buffer.concat([
  Buffer.from(`<!DOCTYPE html>
<HTML><HEAD><TITLE>malformed</TITLE>
<BASE HREF="/base/dir/">
<META charset=utf-8>
</HEAD><BODY>
<p>unclosed paragraph <b>bold <i>italic
<A HREF="upper">upper-case HREF, resolved against the base</A>
<a href="q?b=2&amp;a=1">an entity in the href</a>
<noscript><a href="/noscript-link">inside noscript</a></noscript>
<a href='/single-quoted'>single quotes</a>
<a href=/unquoted>no quotes</a>
<div><span><a href="/in-unclosed-div">deep in unclosed tags</a>
<table><tr><td><a href="/in-broken-table">a cell of a table never closed properly</a></table>
<p>garbage follows: `),
  Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x81, 0xc3, 0x28, 0x0b]),
  Buffer.from(` and the page goes on.
<a href="  /padded  ">spaces around the href</a>
<a href="/after-garbage">after the garbage</a>
<a href="javascript:void(0)">javascript</a>
<a href="mailto:owner@malformed.test">mail</a>
<a>no href at all</a>
<script>var s = '<a href="/in-script">not a link</a>';</script>
<!-- <a href="/in-comment">commented out</a> -->
<p>the end, and no closing tags
`),
]);

/** The links a correct parser finds on `http://malformed.test/`, resolved and normalised. */
export const MALFORMED_LINKS: readonly string[] = [
  "http://malformed.test/base/dir/upper",
  "http://malformed.test/base/dir/q?a=1&b=2",
  "http://malformed.test/noscript-link",
  "http://malformed.test/single-quoted",
  "http://malformed.test/unquoted",
  "http://malformed.test/in-unclosed-div",
  "http://malformed.test/in-broken-table",
  "http://malformed.test/padded",
  "http://malformed.test/after-garbage",
];

export function brokenHosts(): Record<string, HostBehaviour> {
  return {
    "errors.test": routedHost({
      description: "`/` links `/404`, `/410`, `/403`, `/500` (each answers its status) and `/ok`",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("errors", linkList(["/404", "/410", "/403", "/500", "/ok"])),
        "/ok": page("ok", linkList(["/"])),
        "/410": (_q, res) => send(res, 410, page("gone", "<p>Gone for good.</p>\n")),
        "/403": (_q, res) => send(res, 403, page("forbidden", "<p>Forbidden.</p>\n")),
        "/500": (_q, res) => send(res, 500, page("error", "<p>Internal error.</p>\n")),
      },
      mustFetch: ["/", "/404", "/410", "/403", "/500", "/ok"],
    }),
    "malformed.test": routedHost({
      description: "`/` is broken HTML (see `MALFORMED_LINKS` for the links a parser must find); every other path is a small 200 page",
      robots: PLAIN_ROBOTS,
      routes: { "/": (_q, res) => send(res, 200, MALFORMED_HOME) },
      fallback: (_q, res, ctx) => send(res, 200, page(`malformed ${ctx.path}`, "<p>A leaf.</p>\n")),
      mustFetch: ["/", ...MALFORMED_LINKS.map((u) => u.slice("http://malformed.test".length))],
      mustNotFetch: ["/in-script", "/in-comment", "/upper", "/base/dir/noscript-link"],
    }),
  };
}
