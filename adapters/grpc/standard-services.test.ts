import { afterEach, expect, test } from "bun:test";
import { credentials, status, type ClientReadableStream, type ServiceError } from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { FrontierServiceService } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import {
  HealthCheckResponse_ServingStatus as Status,
  HealthClient,
  type HealthCheckResponse,
} from "../../proto/gen/grpc/health/v1/health.ts";
import {
  ServerReflectionClient,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../../proto/gen/grpc/reflection/v1/reflection.ts";
import { startGrpcServer, unary, type RunningGrpcServer } from "./server.ts";

const FRONTIER = "crawler.frontier.v1.FrontierService";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function frontierServer(): Promise<RunningGrpcServer> {
  const server = await startGrpcServer(
    [{ definition: FrontierServiceService, implementation: { getHost: unary(async () => ({})) } }],
    "127.0.0.1:0",
  );
  cleanups.push(() => server.close(0));
  return server;
}

function healthClient(server: RunningGrpcServer): HealthClient {
  const client = new HealthClient(server.address, credentials.createInsecure());
  cleanups.push(() => client.close());
  return client;
}

function check(client: HealthClient, service: string): Promise<Status | string> {
  return new Promise((resolve) =>
    client.check({ service }, (error: ServiceError | null, response?: HealthCheckResponse) =>
      resolve(error ? status[error.code] : response!.status),
    ),
  );
}

/** Collects a Watch stream's statuses; `ended` resolves with the final status code. */
function watch(client: HealthClient, service: string): { seen: Status[]; ended: Promise<string> } {
  const seen: Status[] = [];
  const call: ClientReadableStream<HealthCheckResponse> = client.watch({ service });
  call.on("data", (r: HealthCheckResponse) => seen.push(r.status));
  const ended = new Promise<string>((resolve) => call.on("status", (s) => resolve(status[s.code])));
  call.on("error", () => {});
  cleanups.push(() => call.cancel());
  return { seen, ended };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

test("health - every name is NOT_SERVING until the owner sets it, and an unknown name is NOT_FOUND", async () => {
  const server = await frontierServer();
  const client = healthClient(server);
  expect(await check(client, "")).toBe(Status.NOT_SERVING);
  expect(await check(client, FRONTIER)).toBe(Status.NOT_SERVING);
  expect(await check(client, "crawler.coordinator.v1.CoordinatorService")).toBe("NOT_FOUND");

  server.health.set(true);
  expect(await check(client, "")).toBe(Status.SERVING);
  expect(await check(client, FRONTIER)).toBe(Status.SERVING);
  server.health.set(false, FRONTIER);
  expect(await check(client, FRONTIER)).toBe(Status.NOT_SERVING);
  expect(await check(client, "")).toBe(Status.SERVING);
});

test("health - Watch sends the status at once and then each change; a stopping server sends NOT_SERVING and ends it", async () => {
  const server = await frontierServer();
  const client = healthClient(server);
  const w = watch(client, FRONTIER);
  const unknown = watch(client, "no.such.Service");
  await until(() => w.seen.length === 1 && unknown.seen.length === 1, "the first answers");
  expect(unknown.seen).toEqual([Status.SERVICE_UNKNOWN]);

  server.health.set(true);
  server.health.set(true); // no change, no message
  await until(() => w.seen.length === 2, "SERVING");
  server.health.set(false);
  await until(() => w.seen.length === 3, "NOT_SERVING");
  server.health.set(true);
  await until(() => w.seen.length === 4, "SERVING again");

  await server.close();
  expect(await w.ended).toBe("OK");
  expect(w.seen).toEqual([Status.NOT_SERVING, Status.SERVING, Status.NOT_SERVING, Status.SERVING, Status.NOT_SERVING]);
  expect(unknown.seen).toEqual([Status.SERVICE_UNKNOWN]);
});

/** One reflection stream: sends each request after the previous answer. */
async function reflect(server: RunningGrpcServer, requests: ServerReflectionRequest[]): Promise<ServerReflectionResponse[]> {
  const client = new ServerReflectionClient(server.address, credentials.createInsecure());
  cleanups.push(() => client.close());
  const call = client.serverReflectionInfo();
  const answers: ServerReflectionResponse[] = [];
  call.on("data", (r: ServerReflectionResponse) => answers.push(r));
  const ended = new Promise<void>((resolve, reject) => {
    call.on("end", () => resolve());
    call.on("error", reject);
  });
  for (const [i, request] of requests.entries()) {
    call.write(request);
    await until(() => answers.length === i + 1, `answer ${i + 1}`);
  }
  call.end();
  await ended;
  return answers;
}

const fileNames = (r: ServerReflectionResponse | undefined) =>
  (r?.fileDescriptorResponse?.fileDescriptorProto ?? []).map((b) => fromBinary(FileDescriptorProtoSchema, b).name);

test("reflection - lists the services and sends a method's file, then its imports once per stream; unknown names are errors that keep the stream", async () => {
  const server = await frontierServer();
  const answers = await reflect(server, [
    { host: "", listServices: "" },
    { host: "", fileContainingSymbol: `${FRONTIER}.Handoff` },
    { host: "", fileContainingSymbol: "crawler.frontier.v1.HostInfo" },
    { host: "", fileContainingSymbol: "crawler.frontier.v1.Nope" },
    { host: "", fileByFilename: "crawler/fetch/v1/fetch.proto" },
    { host: "", allExtensionNumbersOfType: "crawler.frontier.v1.HostInfo" },
  ]);
  expect(answers[0]!.listServicesResponse?.service.map((s) => s.name)).toEqual([
    FRONTIER,
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
  ]);
  expect(fileNames(answers[1])).toEqual(["crawler/frontier/v1/frontier.proto", "crawler/fetch/v1/fetch.proto"]);
  // The same file asked again comes alone: its imports were sent on this stream already.
  expect(fileNames(answers[2])).toEqual(["crawler/frontier/v1/frontier.proto"]);
  expect(answers[3]!.errorResponse).toEqual({ errorCode: status.NOT_FOUND, errorMessage: "symbol crawler.frontier.v1.Nope not found" });
  expect(fileNames(answers[4])).toEqual(["crawler/fetch/v1/fetch.proto"]);
  expect(answers[5]!.allExtensionNumbersResponse).toEqual({ baseTypeName: "crawler.frontier.v1.HostInfo", extensionNumber: [] });
  // Each answer names the request it answers.
  expect(answers[1]!.originalRequest?.fileContainingSymbol).toBe(`${FRONTIER}.Handoff`);
});
