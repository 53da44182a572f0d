import { afterEach, describe, expect, test } from "bun:test";
import { CoordinatorServiceService, GetStatusResponse } from "../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { NotFoundError, NotLeaderError, UnavailableError, UnreachableError } from "../../core/errors/index.ts";
import { CoordinatorLeaderClient } from "./leader-client.ts";
import { startGrpcServer, unary, type RunningGrpcServer } from "./server.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The error a call failed with (awaited by hand: see grpc.test.ts). */
const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

interface FakeCoordinator {
  server: RunningGrpcServer;
  /** Whether it holds the lease now; a standby refuses with NotLeaderError. */
  leader: boolean;
  calls: number;
}

/** A CoordinatorService whose GetStatus answers with its own id in `atMs`, or refuses as a standby. */
async function coordinator(id: number, leader: boolean): Promise<FakeCoordinator> {
  const fake: FakeCoordinator = { server: undefined as unknown as RunningGrpcServer, leader, calls: 0 };
  fake.server = await startGrpcServer(
    [
      {
        definition: CoordinatorServiceService,
        implementation: {
          getStatus: unary(async (): Promise<GetStatusResponse> => {
            fake.calls++;
            if (!fake.leader) throw new NotLeaderError(`coordinator-${id} is a standby`, "coordinator-x");
            return GetStatusResponse.fromPartial({ atMs: BigInt(id) });
          }),
          getHost: unary(async () => {
            if (!fake.leader) throw new NotLeaderError(`coordinator-${id} is a standby`);
            throw new NotFoundError("no such host");
          }),
        },
      },
    ],
    "127.0.0.1:0",
  );
  cleanups.push(() => fake.server.close(0));
  return fake;
}

function client(addresses: string[], failoverMs = 5_000): CoordinatorLeaderClient {
  const c = new CoordinatorLeaderClient(addresses, { deadlineMs: 2_000, failoverMs });
  cleanups.push(() => c.close());
  return c;
}

/** An address nothing listens on (a server started and closed). */
async function deadAddress(): Promise<string> {
  const s = await startGrpcServer([], "127.0.0.1:0");
  await s.close(0);
  return s.address;
}

describe("coordinator leader client", () => {
  test("leader client - whichever address is given first, the call is answered by the lease holder", async () => {
    const standby = await coordinator(1, false);
    const leader = await coordinator(2, true);
    const c = client([standby.server.address, leader.server.address]);
    expect((await c.getStatus()).atMs).toBe(2n);
    // The leader answered last, so the next call goes there first.
    const before = standby.calls;
    expect((await c.getStatus()).atMs).toBe(2n);
    expect(standby.calls).toBe(before);
  });

  test("leader client - an unreachable address is skipped; an answer that is not a refusal is the result", async () => {
    const leader = await coordinator(1, true);
    const c = client([await deadAddress(), leader.server.address]);
    expect((await c.getStatus()).atMs).toBe(1n);
    expect(await failure(c.getHost("x.test"))).toBeInstanceOf(NotFoundError);
  });

  test("leader client - during a failover it waits for a standby to take the lease", async () => {
    const old = await coordinator(1, false); // the leader just died: its address answers no more
    await old.server.close(0);
    const standby = await coordinator(2, false);
    const c = client([old.server.address, standby.server.address]);
    setTimeout(() => (standby.leader = true), 600);
    expect((await c.getStatus()).atMs).toBe(2n);
    expect(standby.calls).toBeGreaterThan(1);
  });

  test("leader client - with no leader in time, or no address reachable, one error names every address", async () => {
    const standby = await coordinator(1, false);
    const dead = await deadAddress();
    const waited = await failure(client([standby.server.address, dead], 400).getStatus());
    expect(waited).toBeInstanceOf(UnavailableError);
    expect((waited as Error).message).toContain("no coordinator holds the lease");
    expect((waited as Error).message).toContain("coordinator-1 is a standby");
    expect((waited as Error).message).toContain(dead);

    const other = await deadAddress();
    const none = await failure(client([dead, other]).getStatus());
    expect(none).toBeInstanceOf(UnreachableError);
    expect((none as Error).message).toContain(`coordinator at ${dead} is unavailable`);
    expect((none as Error).message).toContain(`coordinator at ${other} is unavailable`);
  });

  test("leader client - with one address it fails exactly as that coordinator answered", async () => {
    const standby = await coordinator(1, false);
    const refused = await failure(client([standby.server.address]).getStatus());
    expect(refused).toBeInstanceOf(NotLeaderError);
    expect((refused as NotLeaderError).leader).toBe("coordinator-x");
    expect(standby.calls).toBe(1);
  });
});
