/**
 * A request given up on through the proxy resets its connection instead of closing it, so bytes the kernel
 * had not sent yet (a request written into a partition) are dropped, not delivered once the link is back.
 * On loopback the difference shows at the proxy's end: a reset arrives as ECONNRESET, a close as an end.
 */
import { afterEach, expect, test } from "bun:test";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { AddressPolicy } from "../../../core/net/index.ts";
import { HttpFetcher } from "./index.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

/** A proxy that answers `/ok` at once and holds anything else; says how each of its connections ended. */
async function proxy(): Promise<{ url: string; endings: string[] }> {
  const endings: string[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    let ended = false;
    const end = (how: string) => {
      if (!ended) endings.push(how);
      ended = true;
    };
    socket.on("data", (chunk) => {
      if (chunk.toString("latin1").startsWith("GET http://site.example/ok "))
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    });
    socket.on("error", (error: { code?: string }) => end(error.code ?? "error"));
    socket.on("end", () => end("end"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  owned.push({
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, endings };
}

test("a request through the proxy given up at its deadline resets its connection; one answered keeps it open", async () => {
  const p = await proxy();
  const f = new HttpFetcher({
    userAgent: "testbot/1.0",
    connectTimeoutMs: 1000,
    responseTimeoutMs: 300,
    maxBodyBytes: 1 << 20,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
    proxyUrl: p.url,
  });
  owned.push(f);
  const answered = await f.fetch({ url: "http://site.example/ok" });
  expect(answered.kind === "response" && answered.status).toBe(200);
  await Bun.sleep(50);
  expect(p.endings).toEqual([]);
  const held = await f.fetch({ url: "http://site.example/held" });
  expect(held.kind === "error" && held.error).toBe("timeout");
  await Bun.sleep(100);
  // The held request's connection was reset; the others, closed in order, are the fetcher's probes of the
  // proxy: the check after the timeout (it listens, so the timeout is the host's), and the stall watch's
  // while nothing came back (proxy-stall-watch.ts: once per half the deadline at most, so up to two here).
  const probes = p.endings.filter((how) => how !== "ECONNRESET");
  expect(p.endings.filter((how) => how === "ECONNRESET")).toEqual(["ECONNRESET"]);
  expect(probes.length).toBeGreaterThanOrEqual(1);
  expect(probes.length).toBeLessThanOrEqual(3);
  expect(probes.every((how) => how === "end")).toBe(true);
});
