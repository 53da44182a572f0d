/**
 * Failures of our own side are told from the host's: the host was never asked, so it must not be blamed
 * (no unreachable mark, no longer gap). A refused connection is the host's without a proxy and the
 * proxy's with one; exhausted local ports, file tables and buffers are ours whatever the target; a
 * resolver failing every name alike is ours once enough names in a row fail.
 */
import { afterEach, expect, test } from "bun:test";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { AddressPolicy } from "../../../core/net/index.ts";
import { DnsCache, RESOLVER_DOWN_STREAK } from "./dns-cache.ts";
import { DnsLookupError, ResolverDownError, localCauseOf } from "./errors.ts";
import { HttpFetcher, type FetchOutcome, type HttpFetcherOptions } from "./index.ts";
import { closedPort, startHttpServer } from "./test-servers.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

function fetcher(overrides: Partial<HttpFetcherOptions> = {}): HttpFetcher {
  const f = new HttpFetcher({
    userAgent: "testbot/1.0",
    connectTimeoutMs: 1000,
    responseTimeoutMs: 1000,
    maxBodyBytes: 1 << 20,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
    ...overrides,
  });
  owned.push(f);
  return f;
}

function errorOf(outcome: FetchOutcome): { error: string; local?: string; message: string } {
  if (outcome.kind !== "error") throw new Error(`expected an error, got a ${outcome.status} response`);
  return { error: outcome.error, local: outcome.local, message: outcome.message };
}

/** A proxy that answers `GET http://<name>.example/ok` at once and holds anything else; its connections are kept. */
async function okOrHoldProxy(): Promise<{ server: Server; sockets: Socket[]; port: number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      if (/^GET http:\/\/[a-z]+\.example\/ok /.test(chunk.toString("latin1")))
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  owned.push({
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  });
  return { server, sockets, port: (server.address() as AddressInfo).port };
}

const coded = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8080`), { code });

test("a proxy that refuses connections is a local failure, for http and https targets alike", async () => {
  const port = await closedPort();
  const f = fetcher({ proxyUrl: `http://127.0.0.1:${port}` });
  for (const url of ["http://site.example/", "https://site.example/"]) {
    expect(errorOf(await f.fetch({ url }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  }
});

test("without a proxy a refused connection is still the host's", async () => {
  const port = await closedPort();
  expect(errorOf(await fetcher().fetch({ url: `http://127.0.0.1:${port}/` }))).toMatchObject({ error: "refused" });
  expect(errorOf(await fetcher().fetch({ url: `http://127.0.0.1:${port}/` })).local).toBeUndefined();
});

test("a host the proxy cannot reach is the host's failure (the proxy's answer), not ours", async () => {
  // A forward proxy that answers for the host: 502 to a plain request is a response from it, 502 to CONNECT a refusal.
  const proxy = await startHttpServer((_req, res) => {
    res.writeHead(502, { "content-type": "text/plain" });
    res.end("bad gateway");
  });
  owned.push(proxy);
  const f = fetcher({ proxyUrl: proxy.origin });
  const plain = await f.fetch({ url: "http://site.example/" });
  expect(plain.kind === "response" && plain.status).toBe(502);
  expect(errorOf(await f.fetch({ url: "https://site.example/" }))).toMatchObject({ error: "refused", local: undefined });
});

/** A proxy on a raw socket: reads a request's head, then does `act` with the socket (and the server). */
async function rawProxy(act: (socket: Socket, head: string, server: Server) => void): Promise<string> {
  const server = createServer((socket) => {
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) act(socket, head, server);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  owned.push({ close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The proxy stops listening (at once: close's callback would wait for this connection) and drops the socket. */
function stopThenReset(server: Server, socket: Socket): void {
  server.close();
  socket.resetAndDestroy();
}

test("a proxy that drops a plain-http request and takes no new connection is a local failure; one that still listens passed the host's reset on", async () => {
  // Gone: the proxy stops listening and drops what it held, as a proxy restarting does.
  const going = fetcher({ proxyUrl: await rawProxy((socket, _head, server) => stopThenReset(server, socket)) });
  expect(errorOf(await going.fetch({ url: "http://site.example/" }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  // Still there: the drop is the host's (a proxy that lost the host would have answered 502).
  const passing = fetcher({ proxyUrl: await rawProxy((socket) => socket.resetAndDestroy()) });
  expect(errorOf(await passing.fetch({ url: "http://site.example/" }))).toMatchObject({ error: "reset", local: undefined });
  // Through a CONNECT tunnel the bytes are the host's: a tunnel that opens and then breaks is the host's reset.
  const tunnel = fetcher({
    proxyUrl: await rawProxy((socket, head, server) => {
      if (head.startsWith("CONNECT")) socket.write("HTTP/1.1 200 Connection established\r\n\r\n", () => stopThenReset(server, socket));
    }),
  });
  expect(errorOf(await tunnel.fetch({ url: "https://site.example/" })).local).toBeUndefined();
  // An answer that started and broke off: the host may have failed mid-body, which a proxy can only pass on so.
  const midBody = fetcher({
    proxyUrl: await rawProxy((socket, _head, server) =>
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\nhalf", () => setTimeout(() => stopThenReset(server, socket), 20)),
    ),
  });
  const outcome = await midBody.fetch({ url: "http://site.example/" });
  expect(outcome.kind === "error" ? outcome.local : "a response").toBeUndefined();
});

test("a request through a proxy gone silent (a partition: no answer, no new connection) is a local failure; a slow host behind a listening proxy is the host's timeout", async () => {
  // Cut off: the request is held unanswered and the proxy takes no new connection (the probe is refused
  // here; across a real partition it goes unanswered, tests/faults/fetch-node-cut-from-the-web-mid-crawl).
  const cut = fetcher({ responseTimeoutMs: 300, proxyUrl: await rawProxy((_socket, _head, server) => server.close()) });
  for (const url of ["http://site.example/", "https://site.example/"]) {
    expect(errorOf(await cut.fetch({ url }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  }
  // Slow: the proxy holds the request (the host has not answered yet) and still takes connections.
  const slow = fetcher({ responseTimeoutMs: 300, proxyUrl: await rawProxy(() => {}) });
  expect(errorOf(await slow.fetch({ url: "http://site.example/" }))).toMatchObject({ error: "timeout", local: undefined });
  // With no proxy a timeout is the host's, whoever else is listening.
  const direct = await rawProxy(() => {});
  expect(errorOf(await fetcher({ responseTimeoutMs: 300 }).fetch({ url: `${direct}/` }))).toMatchObject({
    error: "timeout",
    local: undefined,
  });
});

test("requests through the proxy under way end at once as local failures when another finds the proxy out of reach", async () => {
  const held: Socket[] = [];
  const server = createServer((socket) => {
    held.push(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  owned.push({
    close: async () => {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  });
  const port = (server.address() as AddressInfo).port;
  const f = fetcher({ responseTimeoutMs: 5_000, proxyUrl: `http://127.0.0.1:${port}` });
  const t0 = performance.now();
  const caught = [f.fetch({ url: "http://a.example/" }), f.fetch({ url: "http://b.example/" })];
  await Bun.sleep(100);
  server.close();
  expect(errorOf(await f.fetch({ url: "http://c.example/" }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  for (const outcome of await Promise.all(caught)) {
    expect(errorOf(outcome)).toMatchObject({ error: "local", local: "proxy-unreachable" });
  }
  // Long before their 5 s deadline.
  expect(performance.now() - t0).toBeLessThan(2_000);
  // The proxy back, a request it holds is the host's timeout again.
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const slow = fetcher({ responseTimeoutMs: 300, proxyUrl: `http://127.0.0.1:${port}` });
  expect(errorOf(await slow.fetch({ url: "http://d.example/" }))).toMatchObject({ error: "timeout", local: undefined });
});

test("a request that times out while no request has got through the proxy since it was found out of reach is a local failure", async () => {
  // A proxy that answers /ok and holds anything else; it stops listening for a moment.
  const held: Socket[] = [];
  const server = createServer((socket) => {
    held.push(socket);
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      if (chunk.toString("latin1").startsWith("GET http://site.example/ok "))
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  owned.push({
    close: async () => {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  });
  const f = fetcher({ responseTimeoutMs: 300, proxyUrl: `http://127.0.0.1:${port}` });
  server.close();
  expect(errorOf(await f.fetch({ url: "http://site.example/a" }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  // The next request (a node's probe) is held, and the proxy takes connections again when its deadline passes.
  expect(errorOf(await f.fetch({ url: "http://site.example/held" }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  // One answered through the proxy: a held one is the host's timeout again.
  const ok = await f.fetch({ url: "http://site.example/ok" });
  expect(ok.kind === "response" && ok.status).toBe(200);
  expect(errorOf(await f.fetch({ url: "http://site.example/held-again" }))).toMatchObject({ error: "timeout", local: undefined });
});

test("once the proxy is found out of reach, the next requests go on fresh connections, not on idle ones the outage may hold", async () => {
  const { server, sockets, port } = await okOrHoldProxy();
  const f = fetcher({ responseTimeoutMs: 300, proxyUrl: `http://127.0.0.1:${port}` });
  // Two connections, idle after their answers.
  await Promise.all([f.fetch({ url: "http://a.example/ok" }), f.fetch({ url: "http://b.example/ok" })]);
  expect(sockets.length).toBe(2);
  // The proxy takes no new connection; a request on one of the idle ones goes unanswered.
  server.close();
  expect(errorOf(await f.fetch({ url: "http://a.example/held" }))).toMatchObject({ error: "local", local: "proxy-unreachable" });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const ok = await f.fetch({ url: "http://b.example/ok" });
  expect(ok.kind === "response" && ok.status).toBe(200);
  // A third connection carried it: the other idle one was let go with the rest.
  expect(sockets.length).toBe(3);
});

test("requests held on kept-alive connections to a proxy that takes no new connection end as local failures before their deadline, with no other request to find it", async () => {
  // A cut node whose every request sat on an idle connection: no connect timed out, so before the stall
  // watch nothing found the proxy out of reach until the deadlines, when the link had healed and the
  // timeouts were booked against the hosts.
  const { server, port } = await okOrHoldProxy();
  const f = fetcher({ responseTimeoutMs: 4_000, proxyUrl: `http://127.0.0.1:${port}` });
  await Promise.all([f.fetch({ url: "http://a.example/ok" }), f.fetch({ url: "http://b.example/ok" })]);
  await Bun.sleep(50); // the connections back in the pool, idle
  server.close();
  const t0 = performance.now();
  const held = errorOf(await f.fetch({ url: "http://a.example/held" }));
  const tookMs = performance.now() - t0;
  // Sent on an idle connection (a new one would have been refused at once), and ended by the stall watch.
  expect(held).toMatchObject({ error: "local", local: "proxy-unreachable" });
  expect(held.message).toContain("found out of reach");
  // Found within the stall (half the deadline here) and a probe, not at the 4 s deadline.
  expect(tookMs).toBeGreaterThanOrEqual(1_500);
  expect(tookMs).toBeLessThan(3_900);
});

test("exhausted ports, file tables and buffers are ours with or without a proxy; proxy codes only with one", () => {
  expect(localCauseOf(coded("EADDRNOTAVAIL"), false)).toBe("local-ports");
  expect(localCauseOf(coded("EMFILE"), false)).toBe("file-table");
  expect(localCauseOf(coded("ENFILE"), true)).toBe("file-table");
  expect(localCauseOf(coded("ENOBUFS"), false)).toBe("kernel-buffers");
  expect(localCauseOf(coded("ECONNREFUSED"), false)).toBeUndefined();
  expect(localCauseOf(coded("EHOSTUNREACH"), true)).toBe("proxy-unreachable");
  // A connection that timed out: to the proxy with one (a partition drops SYNs silently), the host's without.
  expect(localCauseOf(coded("UND_ERR_CONNECT_TIMEOUT"), true)).toBe("proxy-unreachable");
  expect(localCauseOf(coded("ETIMEDOUT"), true)).toBe("proxy-unreachable");
  expect(localCauseOf(coded("UND_ERR_CONNECT_TIMEOUT"), false)).toBeUndefined();
  expect(localCauseOf(coded("ECONNRESET"), true)).toBeUndefined();
  expect(localCauseOf(new Error("Proxy response (407) !== 200 when HTTP Tunneling"), true)).toBe("proxy-auth");
  expect(localCauseOf(new Error("Proxy response (502) !== 200 when HTTP Tunneling"), true)).toBeUndefined();
  // Wrapped, as undici and our connector wrap socket errors.
  expect(localCauseOf(new Error("fetch failed", { cause: new AggregateError([coded("EADDRNOTAVAIL")]) }), false)).toBe("local-ports");
});

test("a resolver failing every name alike becomes a local failure after a streak, and forgets nothing once back", async () => {
  let down = true;
  const calls: string[] = [];
  const cache = new DnsCache({
    lookup: async (host) => {
      calls.push(host);
      if (down) throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: "EAI_AGAIN" });
      return [{ address: "192.0.2.1", family: 4 }];
    },
  });
  const failures: unknown[] = [];
  for (let i = 0; i < RESOLVER_DOWN_STREAK + 3; i++) failures.push(await cache.resolve(`h${i}.example`).catch((e: unknown) => e));
  // The first names of the streak cannot be told from a host whose name servers fail; after it, ours.
  for (const e of failures.slice(0, RESOLVER_DOWN_STREAK - 1)) expect(e).toBeInstanceOf(DnsLookupError);
  for (const e of failures.slice(RESOLVER_DOWN_STREAK - 1)) {
    expect(e).toBeInstanceOf(ResolverDownError);
    expect(localCauseOf(e, false)).toBe("resolver");
  }
  // Not remembered as failed: once the resolver answers, so do the names it failed while down.
  down = false;
  const last = `h${RESOLVER_DOWN_STREAK + 2}.example`;
  expect(await cache.resolve(last)).toEqual([{ address: "192.0.2.1", family: 4 }]);
  expect(calls.filter((h) => h === last)).toHaveLength(2);
});

test("names that do not exist never add up to a resolver outage", async () => {
  const cache = new DnsCache({
    lookup: async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    },
  });
  for (let i = 0; i < RESOLVER_DOWN_STREAK * 3; i++) {
    const e = await cache.resolve(`gone${i}.example`).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(DnsLookupError);
    expect(localCauseOf(e, false)).toBeUndefined();
  }
});
