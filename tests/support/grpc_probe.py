"""An independent gRPC client for the cluster's standard services, as an operator's tool would be one.

It shares nothing with the project's TypeScript: Debian's python3-grpcio makes the calls, and the request
and response messages come from Debian's own copy of the standard protocols (grpc-proto, in
/usr/share/grpc-proto), compiled here by python3-grpc-tools into descriptors that python3-protobuf turns
into message classes. A wrong field number or method path on our side therefore fails here.

Usage (prints one JSON value per line on stdout; exit 2 when a needed package is missing):
  grpc_probe.py check ADDR SERVICE          -> "SERVING" | "NOT_SERVING" | {"code": "NOT_FOUND"}
  grpc_probe.py watch ADDR SERVICE COUNT    -> COUNT statuses, one line each, as they arrive
  grpc_probe.py list ADDR [v1|v1alpha]      -> ["service", ...] by reflection
  grpc_probe.py describe ADDR SERVICE       -> {"Method": ["input type", "output type"], ...} by reflection

Run by tests/e2e/cluster/grpc-health-and-reflection-answer-an-independent-client.test.ts with Debian's
/usr/bin/python3 (a python3 earlier on PATH may be another installation that does not see Debian's packages).
"""
import json
import os
import sys
import tempfile

STANDARD_PROTOS = "/usr/share/grpc-proto"
STANDARD_FILES = ["grpc/health/v1/health.proto", "grpc/reflection/v1/reflection.proto", "grpc/reflection/v1alpha/reflection.proto"]
DEADLINE_S = 10

try:
    import grpc
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from grpc_tools import protoc
except ImportError as error:
    print(f"grpc_probe: {error}: install python3-grpcio and python3-grpc-tools (apt-get install)", file=sys.stderr)
    sys.exit(2)


def standard_pool():
    """Debian's standard health and reflection protocols as a descriptor pool."""
    if not os.path.exists(os.path.join(STANDARD_PROTOS, STANDARD_FILES[0])):
        print(f"grpc_probe: {STANDARD_PROTOS} has no standard protocols: install grpc-proto (apt-get install)", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "standard.binpb")
        code = protoc.main(["protoc", f"-I{STANDARD_PROTOS}", f"--descriptor_set_out={out}", *STANDARD_FILES])
        if code != 0:
            raise SystemExit(f"grpc_probe: protoc failed on {STANDARD_FILES} with exit code {code}")
        with open(out, "rb") as f:
            files = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return pool


def message_class(pool, name):
    descriptor = pool.FindMessageTypeByName(name)
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def health_stub(channel, pool, method, streaming):
    request = message_class(pool, "grpc.health.v1.HealthCheckRequest")
    response = message_class(pool, "grpc.health.v1.HealthCheckResponse")
    call = channel.unary_stream if streaming else channel.unary_unary
    stub = call(f"/grpc.health.v1.Health/{method}", request_serializer=request.SerializeToString, response_deserializer=response.FromString)
    return stub, request, response


def status_name(response_class, response):
    return response_class.DESCRIPTOR.enum_types_by_name["ServingStatus"].values_by_number[response.status].name


def check(channel, pool, service):
    stub, request, response = health_stub(channel, pool, "Check", streaming=False)
    try:
        emit(status_name(response, stub(request(service=service), timeout=DEADLINE_S)))
    except grpc.RpcError as error:
        emit({"code": error.code().name})


def watch(channel, pool, service, count):
    stub, request, response = health_stub(channel, pool, "Watch", streaming=True)
    stream = stub(request(service=service), timeout=120)
    for i, message in enumerate(stream):
        emit(status_name(response, message))
        if i + 1 >= count:
            stream.cancel()
            return


def reflect(channel, pool, version, requests):
    """Sends `requests` (dicts of ServerReflectionRequest fields) on one stream; returns the responses."""
    package = f"grpc.reflection.{version}"
    request = message_class(pool, f"{package}.ServerReflectionRequest")
    response = message_class(pool, f"{package}.ServerReflectionResponse")
    stub = channel.stream_stream(
        f"/{package}.ServerReflection/ServerReflectionInfo",
        request_serializer=request.SerializeToString,
        response_deserializer=response.FromString,
    )
    answers = list(stub(iter([request(**r) for r in requests]), timeout=DEADLINE_S))
    for answer in answers:
        if answer.WhichOneof("message_response") == "error_response":
            raise SystemExit(f"grpc_probe: reflection error {answer.error_response.error_code}: {answer.error_response.error_message}")
    return answers


def list_services(channel, pool, version):
    [answer] = reflect(channel, pool, version, [{"list_services": ""}])
    emit(sorted(s.name for s in answer.list_services_response.service))


def describe(channel, pool, service):
    """What `grpcurl describe` does: the file defining `service`, its imports, and the methods' types."""
    [answer] = reflect(channel, pool, "v1", [{"file_containing_symbol": service}])
    files = descriptor_pool.DescriptorPool()
    pending = [descriptor_pb2.FileDescriptorProto.FromString(b) for b in answer.file_descriptor_response.file_descriptor_proto]
    # Imports come after the file that needs them; add them first.
    while pending:
        added = [f for f in pending if all(_known(files, d) for d in f.dependency)]
        if not added:
            raise SystemExit(f"grpc_probe: imports missing from the answer: {[f.name for f in pending]}")
        for f in added:
            files.Add(f)
            pending.remove(f)
    found = files.FindServiceByName(service)
    emit({m.name: [m.input_type.full_name, m.output_type.full_name] for m in found.methods})


def _known(pool, name):
    try:
        pool.FindFileByName(name)
        return True
    except KeyError:
        return False


def emit(value):
    print(json.dumps(value), flush=True)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    command, address = argv[1], argv[2]
    pool = standard_pool()
    with grpc.insecure_channel(address) as channel:
        if command == "check":
            check(channel, pool, argv[3])
        elif command == "watch":
            watch(channel, pool, argv[3], int(argv[4]))
        elif command == "list":
            list_services(channel, pool, argv[3] if len(argv) > 3 else "v1")
        elif command == "describe":
            describe(channel, pool, argv[3])
        else:
            print(f"grpc_probe: unknown command {command}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
