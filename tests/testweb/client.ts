/**
 * A minimal HTTP client for tests of the test web itself: a GET through the test web as a forward proxy
 * (absolute-form target, as the crawler sends it) or directly with a Host header. Bodies are returned
 * raw (no decompression) so a test sees exactly the bytes served. It is not the crawler's client and
 * deliberately knows nothing about politeness.
 */
import { Agent, request, type IncomingHttpHeaders } from "node:http";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface GetOptions {
  headers?: Record<string, string>;
  /** Share one keep-alive connection pool across calls. */
  agent?: Agent;
  /** Abort after this long (the promise then rejects). */
  timeoutMs?: number;
  /** Stop reading after this many body bytes and close the connection. */
  maxBytes?: number;
}

/** GET `url` (`http://host/path`) with the test web at `proxyUrl` as the proxy. */
export function proxyGet(proxyUrl: string, url: string, opts: GetOptions = {}): Promise<Reply> {
  const proxy = new URL(proxyUrl);
  return get(proxy, url, new URL(url).host, opts);
}

/** GET `path` from `origin` (`http://127.0.0.1:port`) with `Host: host`. */
export function directGet(origin: string, host: string, path: string, opts: GetOptions = {}): Promise<Reply> {
  return get(new URL(origin), path, host, opts);
}

function get(server: URL, target: string, host: string, opts: GetOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: server.hostname,
      port: Number(server.port),
      method: "GET",
      path: target,
      headers: { host, ...opts.headers },
      agent: opts.agent,
      timeout: opts.timeoutMs,
    });
    req.on("timeout", () => req.destroy(new Error(`timeout after ${opts.timeoutMs} ms: ${target}`)));
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (opts.maxBytes !== undefined && size >= opts.maxBytes) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.end();
  });
}
