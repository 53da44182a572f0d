import { afterEach, describe, expect, test } from "bun:test";
import { get as getHttps } from "node:https";
import { Hono } from "hono";
import { createAuthority, issueNodeCertificate } from "../../kit/tls/index.ts";
import { BodyTooLargeError } from "./request-body.ts";
import { serveHono, type RunningHttpServer } from "./serve.ts";

const running: RunningHttpServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

function testApp(): Hono {
  const app = new Hono();
  app.get("/hello", (c) => c.json({ hello: c.req.query("name") ?? "world", ua: c.req.header("x-test") ?? "" }));
  app.post("/echo", async (c) => c.text(await c.req.text()));
  app.get("/cookies", (c) => {
    c.header("set-cookie", "a=1", { append: true });
    c.header("set-cookie", "b=2", { append: true });
    return c.text("ok");
  });
  app.get("/boom", () => {
    throw new Error("secret detail");
  });
  app.onError((_e, c) => c.text("mapped", 500));
  return app;
}

async function start(app: { fetch(r: Request): Response | Promise<Response> }, maxBodyBytes?: number): Promise<RunningHttpServer> {
  const s = await serveHono(app, { port: 0, hostname: "127.0.0.1", maxBodyBytes, onError: () => {} });
  running.push(s);
  return s;
}

describe("serveHono", () => {
  test("serveHono - passes method, path, query and headers to the app and returns its JSON", async () => {
    const s = await start(testApp());
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    const res = await fetch(`${s.url}/hello?name=bob`, { headers: { "x-test": "yes" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ hello: "bob", ua: "yes" });
  });

  test("serveHono - passes a request body through", async () => {
    const s = await start(testApp());
    const res = await fetch(`${s.url}/echo`, { method: "POST", body: "payload é" });
    expect(await res.text()).toBe("payload é");
  });

  test("serveHono - the app answers before any body byte is read, and the client still gets that answer", async () => {
    let sawBody = false;
    const app = new Hono();
    app.post("/guarded", async (c) => {
      if (c.req.header("authorization") !== "Bearer right") return c.json({ error: "no" }, 401);
      sawBody = (await c.req.text()).length > 0;
      return c.text("read");
    });
    const s = await start(app, 1024);
    const big = new Uint8Array(10 * 1024 * 1024);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${s.url}/guarded`, { method: "POST", body: big });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "no" });
    }
    expect(sawBody).toBe(false);
    // The connection is still good for the next request.
    const ok = await fetch(`${s.url}/guarded`, { method: "POST", body: "x", headers: { authorization: "Bearer right" } });
    expect(await ok.text()).toBe("read");
  });

  test("serveHono - reading a body over the limit fails with BodyTooLargeError, which the app maps", async () => {
    const app = new Hono();
    app.post("/echo", async (c) => c.text(await c.req.text()));
    app.onError((error, c) => (error instanceof BodyTooLargeError ? c.json({ code: "payload_too_large" }, 413) : c.text("other", 500)));
    const s = await start(app, 16);
    const declared = await fetch(`${s.url}/echo`, { method: "POST", body: "x".repeat(17) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ code: "payload_too_large" });
    expect(await (await fetch(`${s.url}/echo`, { method: "POST", body: "x".repeat(16) })).text()).toBe("x".repeat(16));
  });

  test("serveHono - a chunked body that grows over the limit fails the read; an app that lets it escape gets a 413", async () => {
    const s = await start({ fetch: async (r: Request) => new Response(await r.text()) }, 1024);
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (let i = 0; i < 4; i++) ctrl.enqueue(new Uint8Array(512).fill(65));
        ctrl.close();
      },
    });
    const res = await fetch(`${s.url}/echo`, { method: "POST", body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
  });

  test("serveHono - keeps every Set-Cookie header", async () => {
    const s = await start(testApp());
    const res = await fetch(`${s.url}/cookies`);
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  test("serveHono - a HEAD request gets headers and no body", async () => {
    const s = await start(testApp());
    const res = await fetch(`${s.url}/hello`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  test("serveHono - an app that throws gets a generic 500, not its message", async () => {
    const errors: unknown[] = [];
    const s = await serveHono({ fetch: () => Promise.reject(new Error("secret detail")) }, { port: 0, onError: (e) => errors.push(e) });
    running.push(s);
    const res = await fetch(`${s.url}/x`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("internal error");
    expect(errors.length).toBe(1);
  });

  test("serveHono - close stops accepting connections", async () => {
    const s = await serveHono(testApp(), { port: 0 });
    expect((await fetch(`${s.url}/hello`)).status).toBe(200);
    await s.close();
    await expect(fetch(`${s.url}/hello`)).rejects.toThrow();
  });
});

describe("serveHono over HTTPS", () => {
  test("serveHono - with a certificate it serves HTTPS only, and a client trusting the CA gets the app's answer", async () => {
    const ca = await createAuthority();
    const node = await issueNodeCertificate(ca, { identity: { role: "coordinator", id: "c1" }, hosts: ["127.0.0.1"] });
    const s = await serveHono(testApp(), {
      port: 0,
      hostname: "127.0.0.1",
      onError: () => {},
      tls: { cert: node.certificatePem, key: node.keyPem },
    });
    running.push(s);
    expect(s.url).toBe(`https://127.0.0.1:${s.port}`);
    const body = await new Promise<string>((resolve, reject) => {
      getHttps(`${s.url}/hello?name=tls`, { ca: ca.certificatePem }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve(text));
      }).on("error", reject);
    });
    expect(JSON.parse(body)).toEqual({ hello: "tls", ua: "" });
    // Plain HTTP to the same port gets no answer from the app; a client without the CA refuses the server.
    const plain = await fetch(`http://127.0.0.1:${s.port}/hello`).then(
      (r) => r.status,
      () => "refused",
    );
    expect(plain).not.toBe(200);
    const untrusting = await fetch(`${s.url}/hello`).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    expect(String(untrusting)).toMatch(/certificate|verify/i);
  });
});
