import { afterEach, expect, test } from "bun:test";
import { AddressPolicy } from "../../../core/net/index.ts";
import { preciseNow } from "../../../core/politeness/index.ts";
import type { ServerResponse } from "node:http";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { HttpFetcher, type FetchOutcome, type FetchResponse, type HttpFetcherOptions } from "./index.ts";
import { startHttpServer, startTcpServer, waitFor, type TestServer } from "./test-servers.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

function fetcher(overrides: Partial<HttpFetcherOptions> = {}): HttpFetcher {
  const f = new HttpFetcher({
    userAgent: "testbot/1.0 (+http://bot.example/info)",
    connectTimeoutMs: 1000,
    responseTimeoutMs: 3000,
    maxBodyBytes: 1 << 20,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
    ...overrides,
  });
  owned.push(f);
  return f;
}

async function server(handler: Parameters<typeof startHttpServer>[0]): Promise<TestServer> {
  const s = await startHttpServer(handler);
  owned.push(s);
  return s;
}

function response(outcome: FetchOutcome): FetchResponse {
  if (outcome.kind !== "response") throw new Error(`expected a response, got ${outcome.error}: ${outcome.message}`);
  return outcome;
}

const text = (body: Uint8Array): string => new TextDecoder().decode(body);

test("fetcher - returns status, lower-case headers with repeats joined, the body and what it sent", async () => {
  const s = await server((req, res) => {
    res.setHeader("Set-Cookie", ["a=1", "b=2"]);
    res.setHeader("X-Custom", "yes");
    res.end(`hello from ${req.url}`);
  });
  // On the fetcher's own clock (preciseNow), not Date.now(), which the system can step under a running
  // process (seen: 10.1 s ahead in a full run).
  const before = preciseNow();
  const out = response(await fetcher().fetch({ url: `${s.origin}/page?x=1` }));
  expect(out.status).toBe(200);
  expect(text(out.body)).toBe("hello from /page?x=1");
  expect(out.truncated).toBe(false);
  expect(out.headers["set-cookie"]).toBe("a=1, b=2");
  expect(out.headers["x-custom"]).toBe("yes");
  expect(out.remoteAddress).toBe("127.0.0.1");
  expect(out.httpVersion).toBe("1.1");
  expect(out.url).toBe(`${s.origin}/page?x=1`);
  expect(out.startedAt).toBeGreaterThanOrEqual(before);
  expect(out.endedAt).toBeGreaterThanOrEqual(out.startedAt);
  expect(out.requestHeaders).toEqual({
    host: `127.0.0.1:${s.port}`,
    "user-agent": "testbot/1.0 (+http://bot.example/info)",
    accept: expect.stringContaining("text/html") as unknown as string,
    "accept-encoding": "gzip, deflate, br",
  });
});

test("fetcher - sends User-Agent, Accept, Accept-Encoding and Host on the wire", async () => {
  let seen: Record<string, string | string[] | undefined> = {};
  const s = await server((req, res) => {
    seen = req.headers;
    res.end();
  });
  await fetcher().fetch({ url: `${s.origin}/` });
  expect(seen["user-agent"]).toBe("testbot/1.0 (+http://bot.example/info)");
  expect(seen["accept-encoding"]).toBe("gzip, deflate, br");
  expect(seen.accept).toContain("text/html");
  expect(seen.host).toBe(`127.0.0.1:${s.port}`);
  expect(seen["if-none-match"]).toBeUndefined();
});

test("fetcher - does not follow a redirect but returns it with its Location", async () => {
  const paths: string[] = [];
  const s = await server((req, res) => {
    paths.push(req.url ?? "");
    if (req.url === "/old") {
      res.writeHead(301, { Location: "/new" });
      res.end("moved");
    } else res.end("new");
  });
  const out = response(await fetcher().fetch({ url: `${s.origin}/old` }));
  expect(out.status).toBe(301);
  expect(out.headers.location).toBe("/new");
  expect(paths).toEqual(["/old"]);
});

test("fetcher - sends If-None-Match and If-Modified-Since when given and returns the 304", async () => {
  let seen: Record<string, string | string[] | undefined> = {};
  const s = await server((req, res) => {
    seen = req.headers;
    if (req.headers["if-none-match"] === '"v1"') {
      res.writeHead(304, { ETag: '"v1"' });
      res.end();
    } else res.end("full");
  });
  const out = response(await fetcher().fetch({ url: `${s.origin}/`, etag: '"v1"', lastModified: "Wed, 21 Oct 2015 07:28:00 GMT" }));
  expect(out.status).toBe(304);
  expect(out.body.length).toBe(0);
  expect(seen["if-none-match"]).toBe('"v1"');
  expect(seen["if-modified-since"]).toBe("Wed, 21 Oct 2015 07:28:00 GMT");
  expect(out.requestHeaders["if-none-match"]).toBe('"v1"');
});

test("fetcher - never sends the URL fragment", async () => {
  let path = "";
  const s = await server((req, res) => {
    path = req.url ?? "";
    res.end();
  });
  await fetcher().fetch({ url: `${s.origin}/a?b=c#section` });
  expect(path).toBe("/a?b=c");
});

const page = "Decoded page text. ".repeat(500);
const encoded: Array<[string, string, Uint8Array]> = [
  ["gzip", "gzip", gzipSync(page)],
  ["zlib-wrapped deflate", "deflate", deflateSync(page)],
  ["raw deflate", "deflate", deflateRawSync(page)],
  ["brotli", "br", brotliCompressSync(page)],
];

test.each(encoded)("fetcher - decodes a %s body and reports the encoding", async (_label, encoding, bytes) => {
  const s = await server((_req, res) => {
    res.writeHead(200, { "Content-Encoding": encoding });
    res.end(bytes);
  });
  const out = response(await fetcher().fetch({ url: `${s.origin}/` }));
  expect(text(out.body)).toBe(page);
  expect(out.contentEncoding).toBe(encoding);
  expect(out.unsupportedEncoding).toBeUndefined();
});

/** Writes `chunk` forever, respecting backpressure, until the client goes away. */
function endless(res: ServerResponse, chunk: Uint8Array, headers: Record<string, string>): { sent: () => number } {
  let sent = 0;
  res.writeHead(200, headers);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk)) sent += chunk.length;
    if (!res.destroyed) res.once("drain", pump);
  };
  pump();
  return { sent: () => sent };
}

test("fetcher - stops a gzip bomb at maxBodyBytes and hangs up on it", async () => {
  const member = gzipSync(Buffer.alloc(16 << 20)); // ~16 KB that inflate to 16 MiB each, sent forever
  let closed = false;
  const s = await server((_req, res) => {
    res.on("close", () => {
      closed = true;
    });
    endless(res, member, { "Content-Encoding": "gzip" });
  });
  // The server never stops sending: the fetch returns only because the fetcher stops reading at the cap.
  const out = response(await fetcher({ maxBodyBytes: 1 << 20 }).fetch({ url: `${s.origin}/bomb` }));
  expect(out.body.length).toBe(1 << 20);
  expect(out.truncated).toBe(true);
  await waitFor(() => closed);
});

test("fetcher - cuts an identity body at maxBodyBytes", async () => {
  const s = await server((_req, res) => {
    endless(res, Buffer.alloc(64 * 1024, 120), { "Content-Type": "text/html" });
  });
  const out = response(await fetcher({ maxBodyBytes: 100_000 }).fetch({ url: `${s.origin}/` }));
  expect(out.body.length).toBe(100_000);
  expect(out.truncated).toBe(true);
});

test("fetcher - a request's own body cap wins over the fetcher's (a media fetch)", async () => {
  const s = await server((_req, res) => {
    endless(res, Buffer.alloc(64 * 1024, 120), { "Content-Type": "image/jpeg" });
  });
  const f = fetcher({ maxBodyBytes: 100_000 });
  const larger = response(await f.fetch({ url: `${s.origin}/big.jpg`, maxBodyBytes: 300_000 }));
  expect(larger.body.length).toBe(300_000);
  expect(larger.truncated).toBe(true);
  const smaller = response(await f.fetch({ url: `${s.origin}/small.jpg`, maxBodyBytes: 2_000 }));
  expect(smaller.body.length).toBe(2_000);
});

test("fetcher - keeps a body in an unknown encoding raw and flags it", async () => {
  const s = await server((_req, res) => {
    res.writeHead(200, { "Content-Encoding": "zstd" });
    res.end("opaque");
  });
  const out = response(await fetcher().fetch({ url: `${s.origin}/` }));
  expect(text(out.body)).toBe("opaque");
  expect(out.contentEncoding).toBe("zstd");
  expect(out.unsupportedEncoding).toBe(true);
});

/** A server that answers after `delayMs` and records the most requests it ever had open at once. */
async function slowServer(delayMs: number): Promise<TestServer & { peak: () => number }> {
  let active = 0;
  let peak = 0;
  const s = await server((_req, res) => {
    active++;
    peak = Math.max(peak, active);
    setTimeout(() => {
      active--;
      res.end("ok");
    }, delayMs);
  });
  return Object.assign(s, { peak: () => peak });
}

test("fetcher - uses one keep-alive connection per origin by default", async () => {
  const s = await slowServer(20);
  const f = fetcher();
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => f.fetch({ url: `${s.origin}/` })));
  expect(outcomes.every((o) => o.kind === "response" && o.status === 200)).toBe(true);
  expect(s.peak()).toBe(1);
  expect(s.connections).toBe(1);
});

test("fetcher - opens up to maxConnectionsPerOrigin connections to one origin", async () => {
  const s = await slowServer(50);
  const f = fetcher({ maxConnectionsPerOrigin: 3 });
  await Promise.all(Array.from({ length: 6 }, () => f.fetch({ url: `${s.origin}/` })));
  expect(s.peak()).toBe(3);
  expect(s.connections).toBe(3);
});

test("fetcher - keeps at most maxConcurrentRequests in flight across origins", async () => {
  const s = await slowServer(30);
  const f = fetcher({ maxConnectionsPerOrigin: 10, maxConcurrentRequests: 2 });
  await Promise.all(Array.from({ length: 6 }, () => f.fetch({ url: `${s.origin}/` })));
  expect(s.peak()).toBe(2);
});

test("fetcher - resolves names through the injected lookup and sends the name as Host", async () => {
  let host = "";
  const s = await server((req, res) => {
    host = req.headers.host ?? "";
    res.end();
  });
  const looked: string[] = [];
  const f = fetcher({
    lookup: async (name) => {
      looked.push(name);
      return [{ address: "127.0.0.1", family: 4 }];
    },
  });
  const out = response(await f.fetch({ url: `http://site.test:${s.port}/` }));
  await f.fetch({ url: `http://site.test:${s.port}/again` });
  expect(out.remoteAddress).toBe("127.0.0.1");
  expect(host).toBe(`site.test:${s.port}`);
  expect(looked).toEqual(["site.test"]);
});

test("fetcher - an idle connection is kept for the next request to its host, and closed once keepAliveTimeoutMs has passed", async () => {
  const s = await server((_req, res) => res.end("ok"));
  const f = fetcher({ keepAliveTimeoutMs: 1_500 });
  response(await f.fetch({ url: `${s.origin}/a` }));
  await new Promise((resolve) => setTimeout(resolve, 300));
  response(await f.fetch({ url: `${s.origin}/b` }));
  expect(s.connections).toBe(1);
  await waitFor(() => s.open === 0, 10_000);
  response(await f.fetch({ url: `${s.origin}/c` }));
  expect(s.connections).toBe(2);
});

test("fetcher - a server's Keep-Alive hint shortens how long its idle connection is kept", async () => {
  const s = await startTcpServer((socket) => {
    socket.on("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=1\r\n\r\nok"));
  });
  owned.push(s);
  const f = fetcher({ keepAliveTimeoutMs: 60_000 });
  response(await f.fetch({ url: `${s.origin}/` }));
  // The server never closes it: the crawler does, long before its own 60 s.
  await waitFor(() => s.open === 0, 10_000);
});

test("fetcher - close() ends idle keep-alive connections and later fetches come back aborted", async () => {
  const s = await server((_req, res) => res.end("ok"));
  const f = fetcher();
  response(await f.fetch({ url: `${s.origin}/` }));
  expect(s.open).toBe(1);
  await f.close();
  await waitFor(() => s.open === 0);
  const after = await f.fetch({ url: `${s.origin}/` });
  expect(after.kind === "error" && after.error).toBe("aborted");
});

test("fetcher - rejects unusable options at construction", () => {
  const base = { userAgent: "bot", connectTimeoutMs: 1000, responseTimeoutMs: 1000, maxBodyBytes: 1000 };
  expect(() => new HttpFetcher({ ...base, userAgent: "" })).toThrow(/userAgent/);
  expect(() => new HttpFetcher({ ...base, userAgent: "bot\r\nX-Evil: 1" })).toThrow(/userAgent/);
  expect(() => new HttpFetcher({ ...base, maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  expect(() => new HttpFetcher({ ...base, maxConnectionsPerOrigin: Number.NaN })).toThrow(/maxConnectionsPerOrigin/);
  expect(() => new HttpFetcher({ ...base, proxyUrl: "socks5://127.0.0.1:1080" })).toThrow(/proxyUrl/);
});

test("fetcher - a response that came while this process was not running is read, not timed out, and the time says how long it was stopped", async () => {
  // The server answers 300 ms after the request; the fetcher's deadline is 500 ms. This thread then stops
  // running for 2 s (as a SIGSTOP would stop it): when it runs again, the answer waits in the socket and the
  // deadline is long overdue.
  let asked!: () => void;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  const s = await server((_req, res) => {
    asked();
    setTimeout(() => res.end("answered in 300 ms"), 300);
  });
  const pending = fetcher({ responseTimeoutMs: 500 }).fetch({ url: `${s.origin}/late` });
  await requested;
  const until = performance.now() + 2_000;
  while (performance.now() < until) {
    // stopped
  }
  const out = response(await pending);
  expect(out.status).toBe(200);
  expect(text(out.body)).toBe("answered in 300 ms");
  // Not the host's time: 2 s stopped, less the 500 ms the deadline had.
  expect(out.pausedMs).toBeGreaterThan(1_000);
  expect(out.pausedMs).toBeLessThan(out.endedAt - out.startedAt);
});
