import { afterEach, expect, test } from "bun:test";
import { AddressPolicy } from "../../../core/net/index.ts";
import type { Socket } from "node:net";
import { HttpFetcher, type FetchErrorKind, type FetchOutcome, type HttpFetcherOptions } from "./index.ts";
import { closedPort, startHttpServer, startTcpServer, type TestServer } from "./test-servers.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

function fetcher(overrides: Partial<HttpFetcherOptions> = {}): HttpFetcher {
  const f = new HttpFetcher({
    userAgent: "testbot/1.0",
    connectTimeoutMs: 1000,
    responseTimeoutMs: 300,
    maxBodyBytes: 1 << 20,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
    ...overrides,
  });
  owned.push(f);
  return f;
}

async function tcp(onSocket: (socket: Socket) => void): Promise<TestServer> {
  const s = await startTcpServer(onSocket);
  owned.push(s);
  return s;
}

async function http(handler: Parameters<typeof startHttpServer>[0]): Promise<TestServer> {
  const s = await startHttpServer(handler);
  owned.push(s);
  return s;
}

function expectError(outcome: FetchOutcome, kind: FetchErrorKind): void {
  if (outcome.kind !== "error") throw new Error(`expected ${kind}, got a ${outcome.status} response`);
  expect({ error: outcome.error, message: outcome.message }).toMatchObject({ error: kind });
  expect(outcome.endedAt).toBeGreaterThanOrEqual(outcome.startedAt);
}

/**
 * Runs `fetch` and returns its outcome and how long it took. Only lower bounds are asserted on the time
 * (never before the deadline); what ended a fetch is read from its error kind and message, since a busy
 * machine may run any timer late.
 */
async function timed(run: () => Promise<FetchOutcome>): Promise<[FetchOutcome, number]> {
  const started = performance.now();
  const outcome = await run();
  return [outcome, performance.now() - started];
}

test("fetcher errors - a closed port is refused", async () => {
  const port = await closedPort();
  expectError(await fetcher().fetch({ url: `http://127.0.0.1:${port}/` }), "refused");
});

test("fetcher errors - a server that drops the connection mid-request is a reset", async () => {
  const s = await tcp((socket) => socket.once("data", () => socket.destroy()));
  expectError(await fetcher().fetch({ url: `${s.origin}/` }), "reset");
});

test("fetcher errors - a server that dies in the middle of the body is a reset", async () => {
  const s = await tcp((socket) =>
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial", () => socket.destroy());
    }),
  );
  expectError(await fetcher().fetch({ url: `${s.origin}/` }), "reset");
});

test("fetcher errors - a server that never answers times out at the response deadline", async () => {
  const s = await http(() => {});
  const [outcome, ms] = await timed(() => fetcher().fetch({ url: `${s.origin}/hang` }));
  expectError(outcome, "timeout");
  // Our own 300 ms deadline ended it (undici's backstop timers say otherwise, a second later).
  expect(outcome.kind === "error" && outcome.message).toBe("no complete response within 300 ms");
  expect(ms).toBeGreaterThanOrEqual(290);
});

test("fetcher errors - a body dripping one byte every 500 ms times out at the response deadline", async () => {
  const s = await http((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.write("<");
    const timer = setInterval(() => res.write("x"), 500);
    res.on("close", () => clearInterval(timer));
  });
  const [outcome, ms] = await timed(() => fetcher().fetch({ url: `${s.origin}/drip` }));
  expectError(outcome, "timeout");
  expect(outcome.kind === "error" && outcome.message).toBe("no complete response within 300 ms");
  expect(ms).toBeGreaterThanOrEqual(290);
});

test("fetcher errors - headers dripping a byte at a time time out at the response deadline", async () => {
  const s = await tcp((socket) =>
    socket.once("data", () => {
      const head = "HTTP/1.1 200 OK\r\nX-Slow: " + "y".repeat(1000);
      let i = 0;
      const timer = setInterval(() => {
        if (!socket.destroyed) socket.write(head.charAt(i++ % head.length));
      }, 50);
      socket.on("close", () => clearInterval(timer));
    }),
  );
  const [outcome, ms] = await timed(() => fetcher().fetch({ url: `${s.origin}/` }));
  expectError(outcome, "timeout");
  expect(outcome.kind === "error" && outcome.message).toBe("no complete response within 300 ms");
  expect(ms).toBeGreaterThanOrEqual(290);
});

test("fetcher errors - a TLS handshake that never completes is a connect timeout", async () => {
  // The TCP connection opens, but the server never answers the ClientHello.
  const s = await tcp(() => {});
  const [outcome, ms] = await timed(() =>
    fetcher({ connectTimeoutMs: 200, responseTimeoutMs: 5000 }).fetch({ url: `https://127.0.0.1:${s.port}/` }),
  );
  // The connect timer ended it: the 5 s response deadline would have said `timeout`.
  expectError(outcome, "connect-timeout");
  expect(ms).toBeGreaterThanOrEqual(190);
});

test("fetcher errors - a name that does not resolve is a dns error", async () => {
  const lookup = async (host: string) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };
  const outcome = await fetcher({ lookup }).fetch({ url: "http://nowhere.test/" });
  expectError(outcome, "dns");
  expect(outcome.kind === "error" && outcome.message).toContain("nowhere.test");
});

test("fetcher errors - a resolver that never answers is a dns error after the connect timeout", async () => {
  const lookup = () => new Promise<never>(() => {});
  const [outcome, ms] = await timed(() =>
    fetcher({ lookup, connectTimeoutMs: 100, responseTimeoutMs: 5000 }).fetch({ url: "http://silent.test/" }),
  );
  // The connect timeout ended the lookup: the 5 s response deadline would have said `timeout`.
  expectError(outcome, "dns");
  expect(ms).toBeGreaterThanOrEqual(90);
});

test("fetcher errors - the caller's abort ends a fetch as aborted", async () => {
  const s = await http(() => {});
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const [outcome, ms] = await timed(() => fetcher({ responseTimeoutMs: 5000 }).fetch({ url: `${s.origin}/`, signal: controller.signal }));
  // The abort ended it: the 5 s response deadline would have said `timeout`.
  expectError(outcome, "aborted");
  expect(outcome.kind === "error" && outcome.message).toBe("aborted by the caller");
  expect(ms).toBeGreaterThanOrEqual(45);
});

test("fetcher errors - an already aborted signal ends the fetch before it connects", async () => {
  const s = await http((_req, res) => res.end());
  expectError(await fetcher().fetch({ url: `${s.origin}/`, signal: AbortSignal.abort() }), "aborted");
  expect(s.connections).toBe(0);
});

test("fetcher errors - a reply that is not HTTP is a bad response", async () => {
  const s = await tcp((socket) => socket.once("data", () => socket.end("SSH-2.0-OpenSSH_9.2\r\n\r\n")));
  expectError(await fetcher().fetch({ url: `${s.origin}/` }), "bad-response");
});

test("fetcher errors - a body that does not decode as its Content-Encoding is a bad response", async () => {
  const s = await http((_req, res) => {
    res.writeHead(200, { "Content-Encoding": "gzip" });
    res.end("plain text, not gzip");
  });
  expectError(await fetcher().fetch({ url: `${s.origin}/` }), "bad-response");
});

test("fetcher errors - an unparsable URL or a non-http scheme is an other error", async () => {
  const f = fetcher();
  expectError(await f.fetch({ url: "not a url" }), "other");
  expectError(await f.fetch({ url: "ftp://example.test/file" }), "other");
});

test("fetcher errors - closing the fetcher aborts the fetches in flight", async () => {
  const s = await http(() => {});
  const f = fetcher({ responseTimeoutMs: 5000 });
  const pending = f.fetch({ url: `${s.origin}/` });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await f.close();
  expectError(await pending, "aborted");
});

test("fetcher errors - a body that fails to decode frees its connection for the next fetch", async () => {
  const s = await http((req, res) => {
    if (req.url === "/broken") {
      res.writeHead(200, { "Content-Encoding": "gzip" });
      res.end(Buffer.alloc(200_000, 7));
    } else res.end("fine");
  });
  const f = fetcher({ responseTimeoutMs: 2000 });
  expectError(await f.fetch({ url: `${s.origin}/broken` }), "bad-response");
  const next = await f.fetch({ url: `${s.origin}/ok` });
  expect(next.kind === "response" && next.status).toBe(200);
});
