/**
 * A loopback port nobody listens on, for tests of a refused connection. It is found by binding port 0
 * and closing the listener again; another process could take the port in between, which on a test box
 * is unlikely enough, and a test that sees an answer instead of a refusal fails loudly rather than
 * silently passing.
 */
import { createServer, type AddressInfo } from "node:net";

export interface RefusedPort {
  port: number;
  /** `http://127.0.0.1:port/` */
  url: string;
}

export async function refusedPort(): Promise<RefusedPort> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { port, url: `http://127.0.0.1:${port}/` };
}
