/**
 * A request body the app reads only if and when it wants to: a web ReadableStream over the IncomingMessage,
 * pulled chunk by chunk, that fails with BodyTooLargeError once more than the cap has arrived (at once when
 * Content-Length already says so). Nothing is read before the app asks, so an app checks credentials before
 * a single body byte is taken in, and a wrong token with a 10 MB body costs no memory. After the response,
 * `discardRest` drains what the app left unread, so the client, still sending, gets to read the answer; a
 * client that keeps sending past `discardLimit` has its connection cut.
 */
import type { IncomingMessage } from "node:http";

/** The body is larger than the server accepts. Reaction: answer 413, never retry the same request. */
export class BodyTooLargeError extends Error {
  readonly code = "ERR_BODY_TOO_LARGE";
  constructor(readonly limitBytes: number) {
    super(`request body larger than ${limitBytes} bytes`);
    this.name = "BodyTooLargeError";
  }
}

export class RequestBody {
  readonly stream: ReadableStream<Uint8Array>;
  #received = 0;
  #ended = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly maxBytes: number,
  ) {
    req.pause();
    req.once("end", () => (this.#ended = true));
    const declared = Number(req.headers["content-length"] ?? "0");
    this.stream = new ReadableStream<Uint8Array>({
      pull: (ctrl) => {
        if (Number.isFinite(declared) && declared > maxBytes) return ctrl.error(new BodyTooLargeError(maxBytes));
        return this.#next(ctrl);
      },
    });
  }

  /** One chunk, or the end, or the error that stops the body; the request stays paused in between. */
  #next(ctrl: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const req = this.req;
    if (this.#ended) {
      ctrl.close();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        resolve();
      };
      const onData = (chunk: Uint8Array | string) => {
        req.pause();
        done();
        const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk);
        this.#received += bytes.length;
        if (this.#received > this.maxBytes) ctrl.error(new BodyTooLargeError(this.maxBytes));
        else ctrl.enqueue(bytes);
      };
      const onEnd = () => {
        done();
        ctrl.close();
      };
      const onError = (error: Error) => {
        done();
        ctrl.error(error);
      };
      req.on("data", onData);
      req.once("end", onEnd);
      req.once("error", onError);
      req.resume();
    });
  }

  /** Drops what the app did not read, up to `discardLimit` bytes in all, then cuts the connection. */
  discardRest(discardLimit: number): void {
    const req = this.req;
    if (this.#ended || req.destroyed) return;
    let seen = this.#received;
    req.on("data", (chunk: Uint8Array | string) => {
      seen += typeof chunk === "string" ? chunk.length : chunk.byteLength;
      if (seen > discardLimit) req.destroy();
    });
    req.on("error", () => {});
    req.resume();
  }
}
