import { afterAll, beforeAll, expect, test } from "bun:test";
import { credentials, Metadata, status, type ServerReadableStream, type ServiceError, type sendUnaryData } from "@grpc/grpc-js";
import { FrontierServiceService, HandoffRequest, HostInfo } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import {
  HealthCheckResponse_ServingStatus as Health,
  HealthClient,
  type HealthCheckResponse,
} from "../../proto/gen/grpc/health/v1/health.ts";
import { UnauthenticatedError, UnavailableError } from "../../core/errors/index.ts";
import { createAuthority, issueNodeCertificate, type CertificateAndKey } from "../../kit/tls/index.ts";
import { FrontierClient } from "./clients.ts";
import { startGrpcServer, unary, type RunningGrpcServer } from "./server.ts";
import type { ClientTls, RefusedCall } from "./tls.ts";

let ca: CertificateAndKey;
let otherCa: CertificateAndKey;
const certs: Record<string, CertificateAndKey> = {};
let frontier: RunningGrpcServer;
let plainCoordinatorLike: RunningGrpcServer;
const refused: RefusedCall[] = [];
const served: string[] = [];
const cleanups: Array<() => unknown> = [];

/** A FrontierService that records who reached its handlers. */
function implementation(tag: string) {
  return {
    getHost: unary(async (req: { host: string }) => {
      served.push(`${tag}:getHost:${req.host}`);
      return { host: HostInfo.fromPartial({ host: req.host }) };
    }),
    handoff: (call: ServerReadableStream<HandoffRequest, unknown>, callback: sendUnaryData<unknown>) => {
      let queued = 0;
      call.on("data", (chunk: HandoffRequest) => (queued += chunk.queued.length));
      call.on("end", () => {
        served.push(`${tag}:handoff`);
        callback(null, { partition: 3, queuedReceived: BigInt(queued), urlsReceived: 0n });
      });
    },
  };
}

beforeAll(async () => {
  [ca, otherCa] = await Promise.all([createAuthority(), createAuthority()]);
  const issue = (authority: CertificateAndKey, role: "coordinator" | "frontier" | "fetch", id: string, hosts = ["127.0.0.1"]) =>
    issueNodeCertificate(authority, { identity: { role, id }, hosts });
  certs["server"] = await issue(ca, "frontier", "f1");
  certs["coordinator"] = await issue(ca, "coordinator", "coordinator-1");
  certs["peer"] = await issue(ca, "frontier", "f2");
  certs["fetch"] = await issue(ca, "fetch", "fetch-1");
  certs["foreign"] = await issue(otherCa, "coordinator", "coordinator-1");
  certs["elsewhere"] = await issue(ca, "frontier", "f3", ["10.9.9.9", "f3.crawl.internal"]);
  frontier = await startGrpcServer([{ definition: FrontierServiceService, implementation: implementation("mtls") }], "127.0.0.1:0", {
    tls: {
      ca: ca.certificatePem,
      cert: certs["server"].certificatePem,
      key: certs["server"].keyPem,
      clientRoles: ["coordinator", "frontier"],
    },
    onRefused: (r) => refused.push(r),
  });
  plainCoordinatorLike = await startGrpcServer(
    [{ definition: FrontierServiceService, implementation: implementation("tls") }],
    "127.0.0.1:0",
    {
      tls: { ca: ca.certificatePem, cert: certs["server"].certificatePem, key: certs["server"].keyPem },
    },
  );
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await frontier?.close(0);
  await plainCoordinatorLike?.close(0);
});

function client(address: string, tls: ClientTls | undefined): FrontierClient {
  const c = new FrontierClient(address, { deadlineMs: 5_000, peerName: "frontier node f1", tls });
  cleanups.push(() => c.close());
  return c;
}
const as = (who: string, authority = ca): ClientTls => ({
  ca: authority.certificatePem,
  cert: certs[who]!.certificatePem,
  key: certs[who]!.keyPem,
});
const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

test("grpc mTLS - the coordinator and peer frontier nodes reach a frontier node's API, unary and streaming", async () => {
  const byCoordinator = await client(frontier.address, as("coordinator")).getHost("a.example");
  expect(byCoordinator.host?.host).toBe("a.example");
  const byPeer = await client(frontier.address, as("peer")).handoff([HandoffRequest.fromPartial({ partition: 3, done: true })]);
  expect(byPeer.partition).toBe(3);
  expect(served).toContain("mtls:getHost:a.example");
  expect(served).toContain("mtls:handoff");
});

test("grpc mTLS - a fetch node's certificate of the same CA is refused before the handler runs, and says why", async () => {
  const before = served.length;
  const error = await failure(client(frontier.address, as("fetch")).getHost("b.example"));
  expect(String((error as Error).message)).toContain(
    "PERMISSION_DENIED: crawler.frontier.v1.FrontierService answers coordinator and frontier certificates only; this call came with a fetch certificate (crawler://fetch/fetch-1)",
  );
  const stream = await failure(client(frontier.address, as("fetch")).handoff([HandoffRequest.fromPartial({ partition: 1, done: true })]));
  expect(String((stream as Error).message)).toContain("PERMISSION_DENIED");
  expect(served.length).toBe(before);
  expect(refused.map((r) => [r.method, r.caller])).toEqual([
    ["/crawler.frontier.v1.FrontierService/GetHost", "crawler://fetch/fetch-1"],
    ["/crawler.frontier.v1.FrontierService/Handoff", "crawler://fetch/fetch-1"],
  ]);
});

test("grpc mTLS - no client certificate, another CA's certificate, or plain text: refused in the handshake", async () => {
  const before = served.length;
  const cases = {
    "CA only": { ca: ca.certificatePem },
    "another CA": as("foreign"),
    "plain text": undefined,
  };
  for (const [name, tls] of Object.entries(cases)) {
    const error = await failure(client(frontier.address, tls).getHost("c.example"));
    expect({ name, error: error instanceof UnavailableError }).toEqual({ name, error: true });
    expect({ name, message: (error as Error).message }).toEqual({
      name,
      message: expect.stringContaining("frontier node f1 is unavailable"),
    });
  }
  expect(served.length).toBe(before);
});

test("grpc mTLS - a client refuses a server whose certificate is of another CA or does not name the address dialled", async () => {
  const wrongCa = await failure(client(frontier.address, as("coordinator", otherCa)).getHost("d.example"));
  expect(wrongCa).toBeInstanceOf(UnavailableError);
  const other = await startGrpcServer(
    [{ definition: FrontierServiceService, implementation: implementation("elsewhere") }],
    "127.0.0.1:0",
    {
      tls: {
        ca: ca.certificatePem,
        cert: certs["elsewhere"]!.certificatePem,
        key: certs["elsewhere"]!.keyPem,
        clientRoles: ["coordinator"],
      },
    },
  );
  cleanups.push(() => other.close(0));
  const misnamed = await failure(client(other.address, as("coordinator")).getHost("d.example"));
  expect((misnamed as Error).message).toMatch(/IP: 127\.0\.0\.1 is not in the cert's list/);
  expect(served.filter((s) => s.startsWith("elsewhere"))).toEqual([]);
});

test("grpc mTLS - health answers any certificate of the CA (a fetch node's too), never a stranger", async () => {
  const check = (tls: ClientTls) =>
    new Promise<string>((resolve) => {
      const c = new HealthClient(
        "127.0.0.1:" + frontier.port,
        credentials.createSsl(Buffer.from(tls.ca), tls.key ? Buffer.from(tls.key) : null, tls.cert ? Buffer.from(tls.cert) : null, {
          checkServerIdentity: () => undefined,
        }),
        { "grpc.ssl_target_name_override": "crawler-node.invalid" },
      );
      c.check({ service: "" }, new Metadata(), { deadline: Date.now() + 5_000 }, (error: ServiceError | null, r?: HealthCheckResponse) => {
        c.close();
        resolve(error ? status[error.code]! : Health[r!.status]!);
      });
    });
  expect(await check(as("fetch"))).toBe("NOT_SERVING");
  expect(await check(as("foreign"))).toBe("UNAVAILABLE");
});

test("grpc TLS without client roles - callers need only the CA (the coordinator: its token is the check)", async () => {
  const r = await client(plainCoordinatorLike.address, { ca: ca.certificatePem }).getHost("e.example");
  expect(r.host?.host).toBe("e.example");
  const plain = await failure(client(plainCoordinatorLike.address, undefined).getHost("e.example"));
  expect(plain).toBeInstanceOf(UnavailableError);
  expect(plain).not.toBeInstanceOf(UnauthenticatedError);
});
