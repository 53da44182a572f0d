/**
 * Hosts whose bodies are the hazard. `bomb.test` serves a gzip bomb (10 MiB of zeros in about 10 KB
 * on the wire) and 20 MiB plain bodies with and without Content-Length, all beyond the 5 MB body cap.
 * `binary.test` serves link-looking bytes as image/png and application/octet-stream, and `nonhtml.test`
 * as PDF, RSS, JSON and plain text: none of them may be parsed for links. `nonhtml.test` also serves an
 * XHTML page and an upper-case `TEXT/HTML` type, which must be parsed. The bomb is compressed on first
 * use so that starting a test web stays cheap.
 */
import { gzipSync } from "node:zlib";
import type { ServerResponse } from "node:http";
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

export const BOMB_BYTES = 10 * 1024 * 1024;
export const HUGE_BYTES = 20 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** Streams `total` bytes of HTML-ish filler, honouring backpressure and stopping if the client leaves. */
function streamHuge(res: ServerResponse, total: number, withLength: boolean): void {
  res.statusCode = 200;
  res.setHeader("content-type", "text/html; charset=utf-8");
  if (withLength) res.setHeader("content-length", total);
  const chunk = Buffer.alloc(CHUNK, "<p>filler filler filler filler filler filler filler filler</p>\n");
  let sent = 0;
  let closed = false;
  res.on("close", () => (closed = true));
  const pump = (): void => {
    while (!closed && sent < total) {
      const n = Math.min(CHUNK, total - sent);
      sent += n;
      if (!res.write(n === CHUNK ? chunk : chunk.subarray(0, n))) {
        res.once("drain", pump);
        return;
      }
    }
    if (!closed) res.end();
  };
  pump();
}

export function bodyHosts(): Record<string, HostBehaviour> {
  let bomb: Buffer | undefined;
  const trap = (name: string) => `<a href="/${name}">a link that must not be followed</a>`;
  return {
    "bomb.test": routedHost({
      description: "`/bomb`: 10 MiB of zeros gzip-compressed (Content-Encoding: gzip); `/huge`, `/huge-chunked`: 20 MiB bodies",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("bombs", linkList(["/bomb", "/huge", "/huge-chunked"])),
        "/bomb": (_q, res) => {
          bomb ??= gzipSync(Buffer.alloc(BOMB_BYTES), { level: 9 });
          send(res, 200, bomb, "text/html; charset=utf-8", { "content-encoding": "gzip" });
        },
        "/huge": (_q, res) => streamHuge(res, HUGE_BYTES, true),
        "/huge-chunked": (_q, res) => streamHuge(res, HUGE_BYTES, false),
      },
      mustFetch: ["/", "/bomb", "/huge", "/huge-chunked"],
    }),
    "binary.test": routedHost({
      description:
        "`/image` (image/png) and `/data` (octet-stream) whose bytes contain `<a href>`s that must not be followed (no extension, so only their type can tell)",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("binary", linkList(["/image", "/data"])),
        "/image": (_q, res) =>
          send(
            res,
            200,
            Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(trap("trap-png"))]),
            "image/png",
          ),
        "/data": (_q, res) => send(res, 200, `<html><body>${trap("trap-bin")}</body></html>`, "application/octet-stream"),
      },
      fallback: (_q, res, ctx) => send(res, 200, page(`binary ${ctx.path}`, "<p>Should not be here.</p>\n")),
      mustFetch: ["/", "/image", "/data"],
      mustNotFetch: ["/trap-png", "/trap-bin"],
    }),
    "nonhtml.test": routedHost({
      description: "PDF, RSS, JSON and text/plain bodies with link-looking content (not parsed); XHTML and `TEXT/HTML` pages (parsed)",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("non-html", linkList(["/doc.pdf", "/feed.xml", "/data.json", "/notes.txt", "/page.xhtml", "/upper-type"])),
        "/doc.pdf": (_q, res) => send(res, 200, `%PDF-1.4\n${trap("trap-pdf")}\n%%EOF\n`, "application/pdf"),
        "/feed.xml": (_q, res) =>
          send(
            res,
            200,
            `<?xml version="1.0"?><rss version="2.0"><channel><link>http://nonhtml.test/trap-rss</link>${trap("trap-rss-a")}</channel></rss>\n`,
            "application/rss+xml",
          ),
        "/data.json": (_q, res) => send(res, 200, JSON.stringify({ html: trap("trap-json") }), "application/json"),
        "/notes.txt": (_q, res) => send(res, 200, `Plain text with markup in it: ${trap("trap-txt")}\n`, "text/plain; charset=utf-8"),
        "/page.xhtml": (_q, res) =>
          send(
            res,
            200,
            `<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>xhtml</title></head><body><a href="/from-xhtml">followed</a></body></html>\n`,
            "application/xhtml+xml",
          ),
        "/upper-type": (_q, res) => send(res, 200, page("upper", linkList(["/from-upper-type"])), "TEXT/HTML; Charset=UTF-8"),
      },
      fallback: (_q, res, ctx) => send(res, 200, page(`non-html ${ctx.path}`, "<p>A leaf.</p>\n")),
      mustFetch: [
        "/",
        "/doc.pdf",
        "/feed.xml",
        "/data.json",
        "/notes.txt",
        "/page.xhtml",
        "/upper-type",
        "/from-xhtml",
        "/from-upper-type",
      ],
      mustNotFetch: ["/trap-pdf", "/trap-rss", "/trap-rss-a", "/trap-json", "/trap-txt"],
    }),
  };
}
