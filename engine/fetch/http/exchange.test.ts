import { afterEach, expect, test } from "bun:test";
import type { Socket } from "node:net";
import { sendGet } from "./exchange.ts";
import { startTcpServer, waitFor, type TestServer } from "./test-servers.ts";
import { Agent, type Dispatcher } from "./undici.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

function agent(): Dispatcher {
  const a = new Agent({ connections: 1, pipelining: 1 });
  owned.push({ close: () => a.destroy() });
  return a;
}

async function tcp(onSocket: (socket: Socket) => void): Promise<TestServer> {
  const s = await startTcpServer(onSocket);
  owned.push(s);
  return s;
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const never = new AbortController().signal;

test("exchange - a large body arrives whole, and an unread one holds the server back instead of piling up in memory", async () => {
  const size = 64 * 1024 * 1024;
  const block = Buffer.alloc(1024 * 1024, 7);
  let written = 0;
  const server = await tcp((socket) => {
    socket.once("data", () => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\n\r\n`);
      const pump = () => {
        while (written < size) {
          written += block.length;
          if (!socket.write(block)) {
            socket.once("drain", pump);
            return;
          }
        }
      };
      pump();
    });
  });
  const response = await sendGet(agent(), new URL(`${server.origin}/big`), { host: "a" }, never);
  expect(response.statusCode).toBe(200);
  // Nobody reads: once the client's high water mark and the socket buffers are full, the server's writes stall.
  let last = -1;
  for (let i = 0; i < 100 && written !== last; i++) {
    last = written;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(written).toBe(last);
  expect(written).toBeLessThanOrEqual(size / 2);
  const body = await readAll(response.body);
  expect(body.length).toBe(size);
  expect(body.every((b) => b === 7)).toBe(true);
});

test("exchange - destroying the body mid-transfer closes its connection", async () => {
  let closed = false;
  const server = await tcp((socket) => {
    socket.once("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(1000)));
    socket.on("close", () => {
      closed = true;
    });
  });
  const response = await sendGet(agent(), new URL(`${server.origin}/`), { host: "a" }, never);
  const it = response.body[Symbol.asyncIterator]();
  const first = await it.next();
  expect(first.done).toBe(false);
  response.body.destroy();
  await waitFor(() => closed);
  await expect(it.next()).rejects.toThrow("destroyed");
});

test("exchange - the signal aborts before the head arrives: the promise rejects with its reason", async () => {
  const server = await tcp(() => {}); // accepts, never answers
  const controller = new AbortController();
  const pending = sendGet(agent(), new URL(`${server.origin}/`), { host: "a" }, controller.signal);
  await waitFor(() => server.connections === 1);
  controller.abort(new Error("deadline"));
  await expect(pending).rejects.toThrow("deadline");
});

test("exchange - the signal aborts while the body is read: the reader gets its reason", async () => {
  const server = await tcp((socket) => {
    socket.once("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
  });
  const controller = new AbortController();
  const response = await sendGet(agent(), new URL(`${server.origin}/`), { host: "a" }, controller.signal);
  // Mid-body: the first bytes are in, the rest is awaited when the signal aborts.
  const chunks = response.body[Symbol.asyncIterator]();
  const first = await chunks.next();
  expect(first.done).toBe(false);
  expect("abc".startsWith(Buffer.from(first.value!).toString())).toBe(true);
  const rest = readAll({ [Symbol.asyncIterator]: () => chunks });
  controller.abort(new Error("too slow"));
  await expect(rest).rejects.toThrow("too slow");
});

test("exchange - an already aborted signal sends nothing", async () => {
  const asked: string[] = [];
  const server = await tcp((socket) => {
    socket.on("data", (data) => {
      asked.push(data.toString().split("\r\n")[0]!);
      socket.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
  });
  // One connection, one request at a time: what goes through it reaches the server in the order sent.
  const through = agent();
  const controller = new AbortController();
  controller.abort(new Error("gone"));
  await expect(sendGet(through, new URL(`${server.origin}/aborted`), { host: "a" }, controller.signal)).rejects.toThrow("gone");
  // The fence: a request sent after it through the same agent is answered, and the server saw only that one.
  const after = await sendGet(through, new URL(`${server.origin}/after`), { host: "a" }, never);
  expect(after.statusCode).toBe(204);
  await readAll(after.body);
  expect(asked).toEqual(["GET /after HTTP/1.1"]);
  expect(server.connections).toBe(1);
});

test("exchange - interim 1xx responses are skipped; the final status, headers and body are the response", async () => {
  const server = await tcp((socket) => {
    socket.once("data", () =>
      socket.write(
        "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
          "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Thing: Yes\r\n\r\nok",
      ),
    );
  });
  const response = await sendGet(agent(), new URL(`${server.origin}/path?q=1`), { host: "a" }, never);
  expect(response.statusCode).toBe(200);
  expect(response.headers["x-thing"]).toBe("Yes");
  expect(response.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
  expect((await readAll(response.body)).toString()).toBe("ok");
});

test("exchange - the request goes out as GET of the path and query, with the given headers", async () => {
  let head = "";
  const server = await tcp((socket) => {
    socket.once("data", (data) => {
      head = data.toString();
      socket.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
  });
  const response = await sendGet(
    agent(),
    new URL(`${server.origin}/a/b?x=1&y=2`),
    { host: "example.test", "user-agent": "testbot/1.0" },
    never,
  );
  expect(response.statusCode).toBe(204);
  expect((await readAll(response.body)).length).toBe(0);
  expect(head.startsWith("GET /a/b?x=1&y=2 HTTP/1.1\r\n")).toBe(true);
  expect(head).toContain("host: example.test\r\n");
  expect(head).toContain("user-agent: testbot/1.0\r\n");
});
