import { afterEach, expect, test } from "bun:test";
import { AddressPolicy } from "../../../core/net/index.ts";
import { HttpFetcher, type FetchOutcome, type HttpFetcherOptions } from "./index.ts";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { listenTestServer, startHttpServer, type TestServer } from "./test-servers.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

/** A fetcher with the production address policy: private addresses refused. */
function fetcher(overrides: Partial<HttpFetcherOptions> = {}): HttpFetcher {
  const f = new HttpFetcher({
    userAgent: "testbot/1.0",
    connectTimeoutMs: 1000,
    responseTimeoutMs: 2000,
    maxBodyBytes: 1 << 20,
    ...overrides,
  });
  owned.push(f);
  return f;
}

async function http(handler: Parameters<typeof startHttpServer>[0]): Promise<TestServer> {
  const s = await startHttpServer(handler);
  owned.push(s);
  return s;
}

function errorOf(outcome: FetchOutcome): { error: string; message: string } {
  if (outcome.kind !== "error") throw new Error(`expected an error, got a ${outcome.status} response`);
  return { error: outcome.error, message: outcome.message };
}

const resolvesTo = (address: string) => async () => [{ address, family: address.includes(":") ? 6 : 4 }];

test("fetcher safety - refuses a loopback IP literal without connecting", async () => {
  const s = await http((_req, res) => res.end("secret"));
  const outcome = errorOf(await fetcher().fetch({ url: `${s.origin}/` }));
  expect(outcome.error).toBe("blocked-address");
  expect(outcome.message).toContain("loopback");
  expect(s.connections).toBe(0);
});

test("fetcher safety - refuses a name that resolves to loopback without connecting", async () => {
  const s = await http((_req, res) => res.end("secret"));
  const outcome = errorOf(await fetcher({ lookup: resolvesTo("127.0.0.1") }).fetch({ url: `http://evil.test:${s.port}/` }));
  expect(outcome.error).toBe("blocked-address");
  expect(outcome.message).toContain("evil.test");
  expect(s.connections).toBe(0);
});

test("fetcher safety - refuses an IPv4-mapped IPv6 literal that hides loopback", async () => {
  const s = await http((_req, res) => res.end("secret"));
  expect(errorOf(await fetcher().fetch({ url: `http://[::ffff:127.0.0.1]:${s.port}/` })).error).toBe("blocked-address");
  expect(s.connections).toBe(0);
});

test("fetcher safety - refuses names resolving to private, link-local, CGNAT and metadata addresses", async () => {
  for (const address of [
    "10.0.0.8",
    "192.168.1.1",
    "172.20.0.1",
    "169.254.10.10",
    "100.64.1.1",
    "169.254.169.254",
    "fd00:ec2::254",
    "fe80::1",
    "0.0.0.0",
  ]) {
    const outcome = errorOf(await fetcher({ lookup: resolvesTo(address) }).fetch({ url: "http://inside.test/" }));
    expect(outcome.error).toBe("blocked-address");
  }
});

test("fetcher safety - refuses metadata addresses even when private addresses are allowed", async () => {
  const outcome = errorOf(
    await fetcher({ addressPolicy: new AddressPolicy({ allowPrivate: true }) }).fetch({ url: "http://169.254.169.254/latest/meta-data/" }),
  );
  expect(outcome.error).toBe("blocked-address");
});

/**
 * A forward proxy that answers every request itself, as if it were the virtual host named in the
 * absolute-form request target; CONNECT tunnels are refused with 502.
 */
async function forwardProxy(): Promise<
  TestServer & { seen: Array<{ target: string; host: string; method: string }>; mostAtOnce: Map<string, number> }
> {
  const seen: Array<{ target: string; host: string; method: string }> = [];
  // Requests in flight per virtual host, and the most seen at once: answered on the next turn, so
  // overlapping requests would show.
  const running = new Map<string, number>();
  const mostAtOnce = new Map<string, number>();
  const server = createServer((req, res) => {
    seen.push({ target: req.url ?? "", host: req.headers.host ?? "", method: req.method ?? "" });
    const target = new URL(req.url ?? "/", "http://invalid.invalid");
    const now = (running.get(target.host) ?? 0) + 1;
    running.set(target.host, now);
    mostAtOnce.set(target.host, Math.max(now, mostAtOnce.get(target.host) ?? 0));
    setTimeout(() => {
      running.set(target.host, (running.get(target.host) ?? 1) - 1);
      res.end(`virtual host ${target.host} served ${target.pathname}`);
    }, 5);
  });
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    seen.push({ target: req.url ?? "", host: req.headers.host ?? "", method: req.method ?? "" });
    socket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
  });
  const s = await listenTestServer(server);
  owned.push(s);
  return Object.assign(s, { seen, mostAtOnce });
}

test("fetcher safety - sends absolute-form requests with the right Host through the proxy and resolves nothing itself", async () => {
  const proxy = await forwardProxy();
  const looked: string[] = [];
  const f = fetcher({
    proxyUrl: proxy.origin,
    lookup: async (host) => {
      looked.push(host);
      throw new Error("the crawler must not resolve names behind a proxy");
    },
  });
  const outcome = await f.fetch({ url: "http://www.site.test:8080/page?q=1#frag" });
  if (outcome.kind !== "response") throw new Error(`${outcome.error}: ${outcome.message}`);
  expect(new TextDecoder().decode(outcome.body)).toBe("virtual host www.site.test:8080 served /page");
  expect(outcome.remoteAddress).toBeUndefined();
  expect(proxy.seen).toEqual([{ target: "http://www.site.test:8080/page?q=1", host: "www.site.test:8080", method: "GET" }]);
  expect(looked).toEqual([]);
});

test("fetcher safety - one request at a time per target origin through the proxy, on connections the hosts share", async () => {
  const proxy = await forwardProxy();
  const f = fetcher({ proxyUrl: proxy.origin });
  // Three requests to one host and two to another, all at once: each host's arrive one after another.
  await Promise.all([
    ...[1, 2, 3].map((i) => f.fetch({ url: `http://one.test/${i}` })),
    ...[1, 2].map((i) => f.fetch({ url: `http://two.test/${i}` })),
  ]);
  expect(proxy.seen.length).toBe(5);
  expect(proxy.mostAtOnce.get("one.test")).toBe(1);
  expect(proxy.mostAtOnce.get("two.test")).toBe(1);
  // Two hosts at once need two connections, never one per request: one more when the pool is handed a host's
  // next request a moment before it takes the connection of that host's last one back (seen on a loaded box:
  // 3 in 2 of 6 runs, never more).
  expect(proxy.connections).toBeLessThanOrEqual(3);
});

test("fetcher safety - plain-HTTP hosts one after another reuse one connection to the proxy", async () => {
  const proxy = await forwardProxy();
  const f = fetcher({ proxyUrl: proxy.origin });
  for (let i = 0; i < 50; i++) {
    const outcome = await f.fetch({ url: `http://site${i}.test/` });
    expect(outcome.kind).toBe("response");
  }
  expect(proxy.seen.length).toBe(50);
  // One, or two when the pool is handed the next request a moment before it takes the last connection back.
  expect(proxy.connections).toBeLessThanOrEqual(2);
});

test("fetcher safety - a proxy asking for credentials (407) is a local failure, not the host's answer", async () => {
  const proxy = await listenTestServer(
    createServer((_req, res) => {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="egress"' });
      res.end();
    }),
  );
  owned.push(proxy);
  const outcome = await fetcher({ proxyUrl: proxy.origin }).fetch({ url: "http://site.test/" });
  expect(outcome).toMatchObject({ kind: "error", error: "local", local: "proxy-auth" });
});

test("fetcher safety - a proxy that refuses to tunnel an https target is refused", async () => {
  const proxy = await forwardProxy();
  const outcome = await fetcher({ proxyUrl: proxy.origin }).fetch({ url: "https://secure.test/" });
  expect(errorOf(outcome).error).toBe("refused");
  expect(proxy.seen).toEqual([{ target: "secure.test:443", host: "secure.test", method: "CONNECT" }]);
});
