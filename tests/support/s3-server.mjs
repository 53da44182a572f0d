// Entry point of the S3 test server process (started by tests/support/s3.ts): s3rver, an S3-protocol
// server keeping objects in a directory, on 127.0.0.1. Prints `s3 ready 127.0.0.1:<port>` once it
// accepts requests. Arguments: --port N (0: pick one), --dir DIR, --bucket NAME (created when missing).
//
// Plain JavaScript because it runs under Node, not Bun: under Bun, s3rver answers a PUT before the
// object's file is completely written, and a HEAD right after it then reports a short size (seen: 917,504
// of 1,000,000 bytes with the right ETag). Under Node the store is consistent.
import S3rver from "s3rver";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (value === undefined) throw new Error(`s3-server: ${name} is required`);
  return value;
};

const server = new S3rver({
  address: "127.0.0.1",
  port: Number(arg("--port")),
  directory: arg("--dir"),
  silent: true,
  configureBuckets: [{ name: arg("--bucket") }],
});
const { port } = await server.run();
process.stdout.write(`s3 ready 127.0.0.1:${port}\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
