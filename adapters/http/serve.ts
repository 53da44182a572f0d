/**
 * Serves a fetch-style app (a Hono app, or anything with `fetch(Request) → Response`) over `node:http`,
 * so the same code runs on Bun, Node and Deno (the fetch node runs on Deno, which rules out `Bun.serve`).
 * Each IncomingMessage becomes a web `Request` whose body is read only when the app reads it, up to
 * `maxBodyBytes` (request-body.ts): reading past that fails with BodyTooLargeError, which the app maps to
 * its own 413 (one that lets it escape gets a plain 413 here). So an app authenticates before any body
 * byte is read. The app's `Response` is written back with back-pressure, and a client that goes away
 * aborts `request.signal`. An app that throws gets a bare 500; apps map their own errors before that.
 * Given `tls` (a certificate and key, PEM), it serves HTTPS only, over `node:https`. Uses no Buffer or
 * process globals, for Deno.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { formatHostPort } from "../../core/net/index.ts";
import { BodyTooLargeError, RequestBody } from "./request-body.ts";

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
  /** Serve HTTPS with this certificate and key (PEM); absent: plain HTTP. */
  tls?: { cert: string; key: string };
}

export interface RunningHttpServer {
  readonly port: number;
  /** `http://hostname:port` (`https://` with TLS), no trailing slash. */
  readonly url: string;
  /** Stops accepting connections and resolves once the open ones are closed (idle ones at once). */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Unread body bytes dropped after a response before the connection is cut instead. */
const MIN_DISCARD_BYTES = 64 * 1024 * 1024;

export async function serveHono(app: FetchApp, opts: ServeOptions): Promise<RunningHttpServer> {
  const hostname = opts.hostname ?? "127.0.0.1";
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const onError = opts.onError ?? ((error: unknown) => console.error("http: app error", error));
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(app, req, res, maxBodyBytes, onError).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) plain(res, 500, "internal error");
      else res.destroy();
    });
  };
  const server = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, onRequest) : createServer(onRequest);
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
    url: `${opts.tls ? "https" : "http"}://${formatHostPort(hostname, port)}`,
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
  const body = method === "GET" || method === "HEAD" ? undefined : new RequestBody(req, maxBodyBytes);
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  // `duplex: "half"` is what a streamed request body needs (the fetch standard; Bun and Deno accept it).
  const init = { method, headers, body: body?.stream, duplex: "half", signal: abort.signal };
  const request = new Request(url.href, init as RequestInit);
  let response: Response;
  try {
    response = await app.fetch(request);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      plain(res, 413, `request body larger than ${maxBodyBytes} bytes`);
    } else {
      onError(error);
      plain(res, 500, "internal error");
    }
    body?.discardRest(Math.max(MIN_DISCARD_BYTES, maxBodyBytes));
    return;
  }
  await writeResponse(res, response, method === "HEAD");
  body?.discardRest(Math.max(MIN_DISCARD_BYTES, maxBodyBytes));
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
