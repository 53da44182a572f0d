/**
 * A TCP forwarder in front of a server, that can stop taking connections and take them again on the same
 * port: an egress proxy that goes away for a while (restarting, overloaded, a firewall rule) as the crawler
 * sees it. While closed, new connections are refused (nothing listens); connections already open carry on
 * until their ends close them, so a request in flight is never cut (a crawl with a short --keep-alive opens
 * a connection per request and so meets the refusals).
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface TcpGate {
  readonly port: number;
  /** `http://127.0.0.1:<port>`: the gate used as an HTTP proxy. */
  readonly url: string;
  /** Connections refused so far are not counted (nothing listens); these were taken. */
  readonly accepted: number;
  /** Stops listening: new connections are refused. */
  close(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
  /** Closes for good, and every connection. */
  stop(): Promise<void>;
}

export async function startTcpGate(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpGate> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect({ host: targetHost, port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  const closeListener = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    // server.close resolves only once every connection ended; the refusal starts at once, so do not wait.
    close: async () => {
      if (!server.listening) return;
      const closed = closeListener();
      void closed;
      await new Promise((r) => setImmediate(r));
    },
    open: async () => {
      if (!server.listening) await listen(port);
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await closeListener();
    },
  };
}
