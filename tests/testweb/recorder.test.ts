/**
 * The request log keeps the instants the politeness checker judges by: a response ends when its last byte
 * is handed to the socket (not when a busy event loop gets round to `finish`, nor before a body the socket
 * could not take at once has gone), and a connection the client closes ends the request when the server
 * sees it close. The test web runs in this process, so its clock is the test's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect } from "node:net";
import { proxyGet } from "./client.ts";
import { logClock as now } from "./clock.ts";
import { record } from "./recorder.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import type { HostBehaviour, RequestRecord } from "./types.ts";

const BIG = 16 * 1024 * 1024;
/** Instants the behaviours below note on the server's side. */
const marks: Record<string, number> = {};

const hosts: Record<string, HostBehaviour> = {
  "busy.test": {
    description: "answers, then keeps the event loop busy for 30 ms",
    robots: { kind: "allow-all", why: "test" },
    serve(_req, res) {
      res.end("done");
      marks.endReturned = now();
      while (now() - marks.endReturned < 30) {
        // The server is busy with other work right after writing the response.
      }
    },
  },
  "big.test": {
    description: `answers ${BIG} bytes, more than the socket takes at once`,
    robots: { kind: "allow-all", why: "test" },
    serve(_req, res) {
      res.setHeader("content-length", BIG);
      res.end(Buffer.alloc(BIG, 97));
    },
  },
  "silent.test": {
    description: "never answers",
    robots: { kind: "allow-all", why: "test" },
    serve() {},
  },
};

describe("request log", () => {
  let web: TestWeb;
  beforeAll(async () => {
    web = await startTestWeb({ hosts: 1, extraHosts: hosts });
  });
  afterAll(() => web.close());

  test("a response written at once ends when end() has written it, however long the server stays busy after", async () => {
    await proxyGet(web.proxyUrl, "http://busy.test/");
    const [r] = web.requestsTo("busy.test");
    expect(r!.completed).toBe(true);
    expect(r!.endedAt).toBeLessThanOrEqual(marks.endReturned!);
    expect(r!.endedAt).toBeGreaterThan(r!.startedAt);
  });

  test("a response the socket cannot take at once ends only once its last byte has been written", async () => {
    const port = new URL(web.proxyUrl).port;
    let resumedAt = 0;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      let got = 0;
      socket.on("connect", () => {
        socket.write("GET http://big.test/ HTTP/1.1\r\nHost: big.test\r\nConnection: close\r\n\r\n");
        socket.pause();
      });
      socket.on("error", reject);
      socket.on("data", (chunk) => {
        got += chunk.length;
        if (got >= BIG) socket.end();
      });
      socket.on("close", () => resolve());
      // The client reads nothing until the request is in the log, and then some more time passes.
      const waitForRequest = setInterval(() => {
        if (web.requestsTo("big.test").length === 0) return;
        clearInterval(waitForRequest);
        setTimeout(() => {
          resumedAt = now();
          socket.resume();
        }, 50);
      }, 5);
    });
    const [r] = web.requestsTo("big.test");
    expect(r!.completed).toBe(true);
    // Most of the body was still waiting when the client started to read: the end comes after that.
    expect(r!.endedAt).toBeGreaterThan(resumedAt);
  });

  test("a request the client gives up on ends when the server sees the connection close", async () => {
    const askedAt = now();
    const error = await proxyGet(web.proxyUrl, "http://silent.test/", { timeoutMs: 100 }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const open = () => web.requestsTo("silent.test")[0]!.endedAt === Number.POSITIVE_INFINITY;
    while (open()) await Bun.sleep(5);
    const [r] = web.requestsTo("silent.test");
    expect(r!.completed).toBe(false);
    expect(r!.status).toBe(0);
    // The client held it for its whole timeout, counted from before it asked (the server may take the
    // request in later on a busy box): the server saw it end no sooner.
    expect(r!.endedAt).toBeGreaterThanOrEqual(askedAt + 100);
  });
});

/**
 * A response on a fake clock: `end()` hands the body over at once (`writableFinished`), and then, as a
 * process the scheduler leaves off the CPU after the write (the write woke the client), returns only
 * `offCpuMs` later. `finishInside` then emits `finish` before returning; `buffered` leaves the body unsent
 * until `flush()`.
 */
function fakeResponse(clock: { t: number }, opts: { offCpuMs: number; finishInside?: boolean; buffered?: boolean }) {
  const res = Object.assign(new EventEmitter(), {
    writableFinished: false,
    headersSent: false,
    statusCode: 200,
    getHeader: (_name: string) => undefined,
    end() {
      res.headersSent = true;
      if (!opts.buffered) res.writableFinished = true;
      clock.t += opts.offCpuMs;
      if (!opts.buffered && opts.finishInside) res.emit("finish");
      return res;
    },
    flush() {
      res.writableFinished = true;
      res.emit("finish");
    },
  });
  return res;
}

function recordOnFakeClock(opts: { offCpuMs: number; finishInside?: boolean; buffered?: boolean }) {
  const clock = { t: 1_000 };
  const res = fakeResponse(clock, opts);
  const req = { headers: {}, method: "GET" } as unknown as IncomingMessage;
  const log: RequestRecord[] = [];
  const rec = record(log, req, res as unknown as ServerResponse, { host: "a.test", path: "/", via: "proxy" }, () => clock.t);
  return { clock, res, rec };
}

describe("request log on a fake clock", () => {
  test("a response written at once ends when end() is called, not when this process gets the CPU back", () => {
    const { clock, res, rec } = recordOnFakeClock({ offCpuMs: 40 });
    clock.t += 2; // the page is made
    res.end();
    expect(clock.t).toBe(1_042);
    expect(rec.completed).toBe(true);
    expect(rec.endedAt).toBe(1_002);
  });

  test("so does one whose finish event comes from inside end()", () => {
    const { clock, res, rec } = recordOnFakeClock({ offCpuMs: 40, finishInside: true });
    clock.t += 2;
    res.end();
    expect(rec.endedAt).toBe(1_002);
  });

  test("a response still buffered after end() ends at finish, when its last byte has gone", () => {
    const { clock, res, rec } = recordOnFakeClock({ offCpuMs: 0, buffered: true });
    res.end();
    expect(rec.endedAt).toBe(Number.POSITIVE_INFINITY);
    clock.t += 300;
    res.flush();
    expect(rec.endedAt).toBe(1_300);
  });
});
