/**
 * Small response helpers shared by the special hosts, so each behaviour reads as its rule rather than as
 * `node:http` plumbing. Headers go through `setHeader` (not `writeHead(status, headers)`) so the recorder
 * can still read Retry-After back from the response when it finishes.
 */
import type { ServerResponse } from "node:http";
import type { RobotsPolicy } from "../types.ts";

export const HTML = "text/html; charset=utf-8";

/** The robots.txt most special hosts serve: everything but `/private/`. */
export const PLAIN_ROBOTS_TEXT = "User-agent: *\nDisallow: /private/\n";
export const PLAIN_ROBOTS: RobotsPolicy = { kind: "rules", text: PLAIN_ROBOTS_TEXT };

export function send(
  res: ServerResponse,
  status: number,
  body: string | Uint8Array,
  contentType: string | undefined = HTML,
  headers: Record<string, string> = {},
): void {
  res.statusCode = status;
  if (contentType !== undefined) res.setHeader("content-type", contentType);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader("content-length", typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  res.end(body);
}

export function redirect(res: ServerResponse, status: number, location: string): void {
  send(res, status, `<!doctype html><title>moved</title><a href="${location}">moved</a>\n`, HTML, { location });
}

export function notFound(res: ServerResponse): void {
  send(res, 404, "<!doctype html><title>404</title><p>Not found.</p>\n");
}

/** A minimal HTML page; `body` is inserted as is. */
export function page(title: string, body: string, head = ""): string {
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title>${head}</head>\n<body>\n<h1>${title}</h1>\n${body}</body></html>\n`;
}

/** `<ul>` of links whose text is the href. */
export function linkList(hrefs: readonly string[]): string {
  return `<ul>\n${hrefs.map((h) => `<li><a href="${h}">${h}</a></li>\n`).join("")}</ul>\n`;
}

/** The path without its query. */
export function pathOnly(path: string): string {
  const q = path.indexOf("?");
  return q < 0 ? path : path.slice(0, q);
}
