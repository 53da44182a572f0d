import { afterEach, describe, expect, test } from "bun:test";
import { FrontierServiceService, HostInfo, type HandoffRequest } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import { FrontierClient } from "./clients.ts";
import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
} from "../../core/errors/index.ts";
import { startGrpcServer, unary, type RunningGrpcServer } from "./server.ts";
import { toGrpcError } from "./status-mapping.ts";
import type { ServerReadableStream, sendUnaryData } from "@grpc/grpc-js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * The error a call failed with. (Bun's `expect(promise).rejects` was seen to stall grpc-js calls until
 * their deadline, so the tests await the promise themselves.)
 */
const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A FrontierService whose GetHost throws according to the host asked for. */
async function server(logged: unknown[] = []): Promise<RunningGrpcServer> {
  const s = await startGrpcServer(
    [
      {
        definition: FrontierServiceService,
        implementation: {
          getHost: unary(
            async (req: { host: string }) => {
              switch (req.host) {
                case "bad":
                  throw new InvalidArgumentError("host: bad");
                case "missing":
                  throw new NotFoundError("no such host");
                case "later":
                  throw new FailedPreconditionError("not serving yet");
                case "down":
                  throw new UnavailableError("store is busy");
                case "who":
                  throw new UnauthenticatedError("who are you");
                case "bug":
                  throw new Error("secret /etc/passwd detail");
                case "slow":
                  await new Promise((r) => setTimeout(r, 500));
              }
              return { host: HostInfo.fromPartial({ host: req.host }) };
            },
            (e) => logged.push(e),
          ),
          handoff: (call: ServerReadableStream<HandoffRequest, unknown>, callback: sendUnaryData<unknown>) => {
            let queued = 0;
            let last: HandoffRequest | undefined;
            call.on("data", (chunk: HandoffRequest) => {
              queued += chunk.queued.length;
              last = chunk;
            });
            call.on("end", () => callback(null, { partition: last?.partition ?? 0, queuedReceived: BigInt(queued), urlsReceived: 0n }));
          },
        },
      },
    ],
    "127.0.0.1:0",
  );
  cleanups.push(() => s.close(100));
  return s;
}

function client(address: string, deadlineMs = 2_000): FrontierClient {
  const c = new FrontierClient(address, { deadlineMs, peerName: "frontier node f1" });
  cleanups.push(() => c.close());
  return c;
}

describe("grpc adapter", () => {
  test("grpc - binds port 0 to a real port and answers calls", async () => {
    const s = await server();
    expect(s.port).toBeGreaterThan(0);
    expect(s.address).toBe(`127.0.0.1:${s.port}`);
    expect((await client(s.address).getHost("example.com")).host?.host).toBe("example.com");
  });

  test("grpc - the project's errors cross the wire with their meaning and message", async () => {
    const c = client((await server()).address);
    const cases: Array<[string, new (...a: never[]) => Error, string]> = [
      ["bad", InvalidArgumentError, "host: bad"],
      ["missing", NotFoundError, "no such host"],
      ["later", FailedPreconditionError, "not serving yet"],
      ["down", UnavailableError, "frontier node f1 is unavailable: store is busy"],
      ["who", UnauthenticatedError, "who are you"],
    ];
    for (const [host, type, message] of cases) {
      const error = await failure(c.getHost(host));
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toBe(message);
    }
  });

  test("grpc - an unknown error is INTERNAL with a generic message and is logged on the server", async () => {
    const logged: unknown[] = [];
    const error = await failure(client((await server(logged)).address).getHost("bug"));
    expect((error as Error).message).toBe("frontier node f1 failed with INTERNAL: internal error");
    expect(String(error)).not.toContain("passwd");
    expect(logged.length).toBe(1);
    expect(toGrpcError(new TypeError("x"), () => {}).details).toBe("internal error");
  });

  test("grpc - a peer that is not listening is unavailable at once, naming the peer", async () => {
    const s = await server();
    const address = s.address;
    await s.close(10);
    const error = await failure(client(address).getHost("example.com"));
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toStartWith("frontier node f1 is unavailable:");
    // At once: refused, not left waiting for the peer until the call's deadline.
    expect((error as Error).message).not.toContain("did not answer in time");
  });

  test("grpc - a call past its deadline is unavailable, saying it did not answer in time", async () => {
    const c = client((await server()).address, 100);
    const error = await failure(c.getHost("slow"));
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toContain("did not answer in time");
    expect((await c.getHost("slow", { deadlineMs: 2_000 })).host?.host).toBe("slow");
  });

  test("grpc - an aborted call stops waiting", async () => {
    const c = client((await server()).address);
    const abort = new AbortController();
    const pending = failure(c.getHost("slow", { signal: abort.signal }));
    abort.abort();
    expect(await pending).toBeInstanceOf(UnavailableError);
  });

  test("grpc - handoff streams every chunk and resolves with the receiver's summary", async () => {
    const c = client((await server()).address);
    async function* chunks(): AsyncGenerator<HandoffRequest> {
      for (let i = 0; i < 50; i++) {
        yield {
          partition: 7,
          fromNode: "a",
          queued: Array.from({ length: 100 }, (_, j) => ({
            host: "h",
            priority: 2,
            url: `http://h/${i}/${j}`,
            depth: 1,
            hops: 0,
            seq: BigInt(i * 100 + j + 1),
            kind: "",
            job: 0,
          })),
          hosts: [],
          urls: [],
          done: i === 49,
          scopeRoots: [],
          jobCounts: [],
        };
      }
    }
    expect(await c.handoff(chunks())).toEqual({ partition: 7, queuedReceived: 5_000n, urlsReceived: 0n });
  });
});
