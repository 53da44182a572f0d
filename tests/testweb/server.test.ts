import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "node:http";
// The real undici, not Bun's built-in stand-in (see STACK-NOTES.md): this is the crawler's client.
import { ProxyAgent, request } from "undici/index.js";
import { directGet, proxyGet } from "./client.ts";
import { logClock } from "./clock.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import { SITE_ROBOTS } from "./site.ts";
import type { HostBehaviour } from "./types.ts";

let web: TestWeb;
let agent: Agent;
// A host whose responses wait for the test to release them: lets a test hold a request open on purpose.
const held: Array<() => void> = [];
const gate: HostBehaviour = {
  description: "answers when released",
  robots: { kind: "allow-all", why: "test" },
  serve(_req, res) {
    held.push(() => res.end("released"));
  },
};

beforeAll(async () => {
  web = await startTestWeb({ hosts: 5, extraHosts: { "gate.test": gate } });
  agent = new Agent({ keepAlive: true });
});
afterAll(async () => {
  agent.destroy();
  await web.close();
});

describe("test web server", () => {
  test("serves the virtual host named by the Host header", async () => {
    const r = await directGet(web.proxyUrl, "site2.test", "/page/3");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.body.toString()).toContain("Page /page/3 of site2.test");
  });

  test("serves the virtual host named in an absolute-form (proxy) target", async () => {
    const r = await proxyGet(web.proxyUrl, "http://site4.test/page/1", { agent });
    expect(r.status).toBe(200);
    expect(r.body.toString()).toContain("Page /page/1 of site4.test");
  });

  test("serves undici's ProxyAgent, which sends plain-HTTP targets in absolute form", async () => {
    const proxy = new ProxyAgent({ uri: web.proxyUrl });
    try {
      const r = await request("http://site3.test/page/2", { dispatcher: proxy });
      expect(r.statusCode).toBe(200);
      expect(await r.body.text()).toContain("Page /page/2 of site3.test");
    } finally {
      await proxy.close();
    }
    expect(web.requests.at(-1)).toMatchObject({ host: "site3.test", path: "/page/2", via: "proxy" });
  });

  test("serves the same bytes both ways and on every request", async () => {
    const a = await proxyGet(web.proxyUrl, "http://site1.test/", { agent });
    const b = await directGet(web.proxyUrl, "site1.test", "/");
    const c = await proxyGet(web.proxyUrl, "http://SITE1.test:80/", { agent });
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.body.equals(c.body)).toBe(true);
  });

  test("serves robots.txt, 404 for unknown paths and 502 for unknown hosts", async () => {
    expect((await proxyGet(web.proxyUrl, "http://site0.test/robots.txt", { agent })).body.toString()).toBe(SITE_ROBOTS);
    expect((await proxyGet(web.proxyUrl, "http://site0.test/nope", { agent })).status).toBe(404);
    expect((await proxyGet(web.proxyUrl, "http://site5.test/", { agent })).status).toBe(502);
    expect((await proxyGet(web.proxyUrl, "http://elsewhere.example/", { agent })).status).toBe(502);
  });

  test("answers /sitemap.xml 404 itself for a host that serves none, even one that never answers, and logs it", async () => {
    expect((await proxyGet(web.proxyUrl, "http://site0.test/sitemap.xml", { agent })).status).toBe(404);
    // gate.test holds every request it serves; the probe is answered by the test web, like robots.txt.
    expect((await proxyGet(web.proxyUrl, "http://gate.test/sitemap.xml", { agent })).status).toBe(404);
    expect(web.requestsTo("gate.test").map((r) => [r.path, r.status])).toContainEqual(["/sitemap.xml", 404]);
  });

  test("keeps connections alive across requests", async () => {
    const one = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    one.on("free", (socket) => ports.add(socket.localPort ?? -1));
    for (let i = 0; i < 3; i++) await proxyGet(web.proxyUrl, `http://site3.test/page/${i}`, { agent: one });
    one.destroy();
    expect(ports.size).toBe(1);
  });

  test("records host, path, method, route, status, times and request headers", async () => {
    web.clearRequests();
    // On the log's own clock: the wall clock can be stepped under a running process (seen: Date.now() 10.1 s
    // ahead of it in a full run), which would fail this comparison.
    const before = logClock();
    await proxyGet(web.proxyUrl, "http://site2.test/page/5?utm_source=x", {
      agent,
      headers: { "user-agent": "testbot/1.0", "if-none-match": '"abc"' },
    });
    await directGet(web.proxyUrl, "site2.test", "/page/6");
    const [a, b] = web.requests;
    expect(a).toMatchObject({
      host: "site2.test",
      path: "/page/5?utm_source=x",
      method: "GET",
      via: "proxy",
      status: 200,
      completed: true,
    });
    expect(a?.headers["user-agent"]).toBe("testbot/1.0");
    expect(a?.headers["if-none-match"]).toBe('"abc"');
    expect(b).toMatchObject({ host: "site2.test", path: "/page/6", via: "direct" });
    expect(a!.startedAt).toBeGreaterThanOrEqual(before - 1);
    expect(a!.endedAt).toBeGreaterThanOrEqual(a!.startedAt);
    expect(b!.startedAt).toBeGreaterThanOrEqual(a!.endedAt);
    expect(web.requestsTo("site2.test").length).toBe(2);
  });

  test("keeps a request open in the log until its response ends", async () => {
    web.clearRequests();
    const reply = proxyGet(web.proxyUrl, "http://gate.test/", { agent });
    while (held.length === 0) await new Promise((r) => setImmediate(r));
    expect(web.requests[0]?.endedAt).toBe(Number.POSITIVE_INFINITY);
    held.shift()?.();
    expect((await reply).body.toString()).toBe("released");
    expect(web.requests[0]?.endedAt).toBeLessThan(Number.POSITIVE_INFINITY);
  });

  test("lists its hosts and exposes their behaviours", () => {
    expect(web.hosts).toEqual(["site0.test", "site1.test", "site2.test", "site3.test", "site4.test", "gate.test"]);
    expect(web.behaviour("gate.test")).toBe(gate);
    expect(web.behaviour("site0.test")?.robots).toEqual({ kind: "rules", text: SITE_ROBOTS });
    expect(web.url("site1.test", "/page/2")).toBe("http://site1.test/page/2");
    expect(web.url("site1.test")).toBe("http://site1.test/");
  });
});

describe("test web lifecycle", () => {
  test("closes while requests are hanging and dripping, and closing twice is harmless", async () => {
    const w = await startTestWeb({ hosts: 1, special: true });
    const hang = proxyGet(w.proxyUrl, "http://hang.test/").catch((e: Error) => e);
    const drip = proxyGet(w.proxyUrl, "http://drip.test/").catch((e: Error) => e);
    while (w.requests.length < 2) await new Promise((r) => setImmediate(r));
    await w.close();
    await w.close();
    expect(await hang).toBeInstanceOf(Error);
    expect(await drip).toBeInstanceOf(Error);
    expect(w.requests.every((r) => r.endedAt < Number.POSITIVE_INFINITY && !r.completed)).toBe(true);
  });

  test("listens on the port it is given", async () => {
    const a = await startTestWeb({ hosts: 1 });
    const port = a.port;
    await a.close();
    const b = await startTestWeb({ hosts: 1, port });
    expect(b.port).toBe(port);
    expect(b.proxyUrl).toBe(`http://127.0.0.1:${port}`);
    await b.close();
  });
});
