/**
 * A connection whose request we gave up on is reset, not closed. Closing a socket (FIN) leaves what it had
 * not sent yet in the kernel's send queue, and the kernel goes on sending it: a request written into a
 * network partition between a fetch node and its egress proxy (which the fetcher then finds out of reach,
 * and gives the task back) reaches the proxy, and so the host, seconds after the link is back, when another
 * node may have fetched that page again: a request the frontier never hears of, inside the host's gap (seen
 * on tests/faults/fetch-node-cut-from-the-web-mid-crawl: 12 pages asked twice, 24 gaps short, each late
 * request on the cut node's old connection). A reset (SO_LINGER 0, `resetAndDestroy`) drops the queue.
 *
 * undici destroys a connection with `InformationalError('aborted')` when a request on it is aborted (our
 * response deadline, the caller's signal); only that destroy becomes a reset. Every other one (a parse
 * error, the server's own close) is left as it was, so the error undici reports stays the same. Plain TCP
 * only: a TLS socket has no reset of its own.
 */
import type { Socket } from "node:net";
import type { Connector } from "./connector.ts";

/** `dial`, with every connection it makes reset instead of closed when a request on it is aborted. */
export function resettingConnector(dial: Connector): Connector {
  return (options, callback) =>
    dial(options, (error, socket) => {
      if (socket) resetOnAbort(socket);
      (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
    });
}

function resetOnAbort(socket: Socket & { encrypted?: boolean }): void {
  if (socket.encrypted || typeof socket.resetAndDestroy !== "function") return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    // resetAndDestroy ends in destroy() with no error: the original close, after SO_LINGER 0.
    if (isAbort(error) && !socket.destroyed) return socket.resetAndDestroy();
    return destroy(error);
  };
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "UND_ERR_INFO" && error.message === "aborted";
}
