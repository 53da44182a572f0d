/**
 * Serves a fetch-style app (a Hono app, or anything with `fetch(Request) → Response`) over `node:http`,
 * so the same code runs on Bun, Node and Deno (the fetch node runs on Deno, which rules out `Bun.serve`).
 * Each IncomingMessage becomes a web `Request` (the body read up front, up to `maxBodyBytes`; a larger
 * body is answered 413 without reaching the app), the app's `Response` is written back with
 * back-pressure, and a client that goes away aborts `request.signal`. An app that throws gets a bare 500;
 * apps map their own errors before that. Uses no Buffer or process globals, for Deno.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { formatHostPort } from "../../core/net/index.ts";

/** What serveHono needs of an app; a Hono instance fits. */
export interface FetchApp {
  fetch(request: Request): Response | Promise<Response>;
}

export interface ServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** Largest request body accepted, default 1 MiB. */
  maxBodyBytes?: number;
  /** Receives errors the app threw (answered as 500); default console.error. */
  onError?: (error: unknown) => void;
}

export interface RunningHttpServer {
  readonly port: number;
  /** `http://hostname:port`, no trailing slash. */
  readonly url: string;
  /** Stops accepting connections and resolves once the open ones are closed (idle ones at once). */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export async function serveHono(app: FetchApp, opts: ServeOptions): Promise<RunningHttpServer> {
  const hostname = opts.hostname ?? "127.0.0.1";
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const onError = opts.onError ?? ((error: unknown) => console.error("http: app error", error));
  const server = createServer((req, res) => {
    handle(app, req, res, maxBodyBytes, onError).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) plain(res, 500, "internal error");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://${formatHostPort(hostname, port)}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Keep-alive connections in the middle of a request get a moment to finish, then are cut.
        const cut = setTimeout(() => server.closeAllConnections?.(), 1_000);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections?.();
      });
      return closing;
    },
  };
}

async function handle(
  app: FetchApp,
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
  onError: (e: unknown) => void,
): Promise<void> {
  const method = req.method ?? "GET";
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  } catch {
    plain(res, 400, "bad request target");
    return;
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    } catch {
      // A header the fetch API refuses (invalid characters) is dropped rather than failing the request.
    }
  }
  let body: Uint8Array | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const read = await readBody(req, maxBodyBytes);
    if (read === "too-large") {
      res.setHeader("connection", "close");
      plain(res, 413, `request body larger than ${maxBodyBytes} bytes`);
      req.destroy();
      return;
    }
    body = read;
  }
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const request = new Request(url.href, { method, headers, body: body && body.length > 0 ? body : undefined, signal: abort.signal });
  let response: Response;
  try {
    response = await app.fetch(request);
  } catch (error) {
    onError(error);
    plain(res, 500, "internal error");
    return;
  }
  await writeResponse(res, response, method === "HEAD");
}

async function readBody(req: IncomingMessage, max: number): Promise<Uint8Array | "too-large"> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > max) return "too-large";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.length;
    if (size > max) return "too-large";
    chunks.push(bytes);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function writeResponse(res: ServerResponse, response: Response, head: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (head || response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel();
        return;
      }
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
    }
  } finally {
    reader.releaseLock();
  }
  res.end();
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": String(new TextEncoder().encode(text).length) });
  res.end(text);
}
