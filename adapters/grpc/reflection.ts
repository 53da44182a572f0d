/**
 * gRPC server reflection (`grpc.reflection.v1` and the older `v1alpha`, which grpcurl still tries first
 * with some versions), so operators' tools list the services and describe their methods without our .proto
 * files. Answers come from the FileDescriptorSet that `bun run proto:gen` writes to proto/gen
 * (descriptors.binpb, with the .proto comments), read once when a server starts.
 *
 * Each request on the stream gets one response: the list of services this server registered; or a file
 * (by name, or the file defining a service, method, message or enum) followed by the files it imports that
 * this stream has not sent yet, each a serialized FileDescriptorProto; or an error response (NOT_FOUND)
 * that leaves the stream open. The project defines no extensions, so extension questions about a known
 * message get an empty answer.
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary, toBinary, type DescFile, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { status, type ServerDuplexStream, type ServiceDefinition } from "@grpc/grpc-js";
import * as v1 from "../../proto/gen/grpc/reflection/v1/reflection.ts";
import * as v1alpha from "../../proto/gen/grpc/reflection/v1alpha/reflection.ts";
import type { GrpcServiceBinding } from "./server.ts";

/** Where `bun run proto:gen` writes the descriptor set (scripts/proto-gen.ts). */
const DESCRIPTOR_SET_URL = new URL("../../proto/gen/descriptors.binpb", import.meta.url);

/** The same message shapes in both protocol versions (v1alpha and v1 differ only in their package). */
type ReflectionRequest = v1.ServerReflectionRequest;
type ReflectionResponse = v1.ServerReflectionResponse;

/** Files and symbols of the descriptor set, with each file already serialized. */
export class DescriptorIndex {
  private readonly encoded = new Map<string, Buffer>();

  private constructor(private readonly registry: FileRegistry) {
    for (const file of registry.files) this.encoded.set(file.name, Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)));
  }

  /** Reads proto/gen/descriptors.binpb (or `bytes`). Throws when it is missing or not a FileDescriptorSet. */
  static load(bytes?: Uint8Array): DescriptorIndex {
    let data = bytes;
    if (!data) {
      try {
        data = readFileSync(DESCRIPTOR_SET_URL);
      } catch (error) {
        throw new Error(`cannot read the descriptor set for gRPC reflection (run \`bun run proto:gen\`): ${DESCRIPTOR_SET_URL.pathname}`, {
          cause: error,
        });
      }
    }
    return new DescriptorIndex(createFileRegistry(fromBinary(FileDescriptorSetSchema, data)));
  }

  /** The file named `name`, undefined when the set has none. */
  file(name: string): DescFile | undefined {
    return this.registry.getFile(name);
  }

  /** The file defining a service, method (`pkg.Service.Method`), message or enum; undefined when none does. */
  fileOfSymbol(symbol: string): DescFile | undefined {
    const type = this.registry.get(symbol);
    if (type) return type.file;
    const dot = symbol.lastIndexOf(".");
    const service = dot > 0 ? this.registry.getService(symbol.slice(0, dot)) : undefined;
    return service?.methods.some((m) => m.name === symbol.slice(dot + 1)) ? service.file : undefined;
  }

  /** Whether `typeName` is a message of the set. */
  hasMessage(typeName: string): boolean {
    return this.registry.getMessage(typeName) !== undefined;
  }

  /** `file` then its imports, transitively, leaving out the names in `sent` (which it extends). */
  encodeWithImports(file: DescFile, sent: Set<string>): Buffer[] {
    const out: Buffer[] = [];
    const visit = (f: DescFile, asked: boolean) => {
      if (sent.has(f.name) && !asked) return;
      sent.add(f.name);
      const bytes = this.encoded.get(f.name);
      if (bytes) out.push(bytes);
      for (const dep of f.dependencies) visit(dep, false);
    };
    visit(file, true);
    return out;
  }
}

/**
 * The reflection services (v1 and v1alpha) of a server that registered `services`: their names are what
 * list_services answers, together with the reflection and health services themselves.
 */
export function reflectionBindings(
  index: DescriptorIndex,
  services: readonly string[],
  streams: Set<{ end(): void }>,
): GrpcServiceBinding[] {
  const names = [...new Set([...services, "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"])].sort();
  const handler = (call: ServerDuplexStream<ReflectionRequest, ReflectionResponse>) => {
    const sent = new Set<string>();
    streams.add(call);
    const forget = () => streams.delete(call);
    call.on("data", (request: ReflectionRequest) => call.write(answer(index, names, request, sent)));
    call.on("end", () => {
      forget();
      call.end();
    });
    call.on("cancelled", forget);
    call.on("error", forget);
  };
  return [
    { definition: v1.ServerReflectionService, implementation: { serverReflectionInfo: handler } },
    { definition: v1alpha.ServerReflectionService, implementation: { serverReflectionInfo: handler } },
  ];
}

/** The fully qualified name of a generated service definition (`crawler.frontier.v1.FrontierService`). */
export function serviceNameOf(definition: ServiceDefinition): string | undefined {
  const first = Object.values(definition)[0];
  return first ? /^\/([^/]+)\//.exec(first.path)?.[1] : undefined;
}

function answer(index: DescriptorIndex, services: readonly string[], request: ReflectionRequest, sent: Set<string>): ReflectionResponse {
  const base = { validHost: request.host, originalRequest: request };
  const files = (file: DescFile | undefined, what: string): ReflectionResponse =>
    file ? { ...base, fileDescriptorResponse: { fileDescriptorProto: index.encodeWithImports(file, sent) } } : notFound(base, what);
  if (request.listServices !== undefined) return { ...base, listServicesResponse: { service: services.map((name) => ({ name })) } };
  if (request.fileByFilename !== undefined) return files(index.file(request.fileByFilename), `file ${request.fileByFilename}`);
  if (request.fileContainingSymbol !== undefined) {
    return files(index.fileOfSymbol(request.fileContainingSymbol), `symbol ${request.fileContainingSymbol}`);
  }
  if (request.fileContainingExtension !== undefined) {
    const { containingType, extensionNumber } = request.fileContainingExtension;
    return notFound(base, `extension ${extensionNumber} of ${containingType}`);
  }
  if (request.allExtensionNumbersOfType !== undefined) {
    const type = request.allExtensionNumbersOfType;
    if (!index.hasMessage(type)) return notFound(base, `message ${type}`);
    return { ...base, allExtensionNumbersResponse: { baseTypeName: type, extensionNumber: [] } };
  }
  return { ...base, errorResponse: { errorCode: status.INVALID_ARGUMENT, errorMessage: "the request asks nothing this server knows" } };
}

function notFound(base: Pick<ReflectionResponse, "validHost" | "originalRequest">, what: string): ReflectionResponse {
  return { ...base, errorResponse: { errorCode: status.NOT_FOUND, errorMessage: `${what} not found` } };
}
