/**
 * Tiny loopback servers for this folder's tests: an HTTP server around a handler, and a raw TCP
 * server around a socket callback (for misbehaving peers: resets, garbage, silence). Each binds
 * 127.0.0.1 on port 0, counts the connections it accepted, and `close()` destroys every socket it
 * still holds so a test never waits on a keep-alive connection.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface TestServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Connections accepted so far. */
  connections: number;
  /** Connections open right now. */
  readonly open: number;
  close(): Promise<void>;
}

export async function startHttpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  return listenTestServer(createHttpServer(handler));
}

export async function startTcpServer(onSocket: (socket: Socket) => void): Promise<TestServer> {
  return listenTestServer(createNetServer(onSocket));
}

/** Listens on 127.0.0.1:0 with any server (http or net) and tracks its sockets. */
export async function listenTestServer(server: Server): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state = {
    port: 0,
    origin: "",
    connections: 0,
    get open() {
      return sockets.size;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  return state;
}

/** A port nothing listens on: bound, read, released. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits until `check()` holds, polling; for state another task changes (never a fixed sleep). */
export async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("waitFor: condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
