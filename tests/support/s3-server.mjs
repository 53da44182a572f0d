// Entry point of the S3 test server process (started by tests/support/s3.ts): s3rver, an S3-protocol
// server keeping objects in a directory, on 127.0.0.1. Prints `s3 ready 127.0.0.1:<port>` once it
// accepts requests. Arguments: --port N (0: pick one), --dir DIR, --bucket NAME (created when missing).
//
// Plain JavaScript because it runs under Node, not Bun: under Bun, s3rver answers a PUT before the
// object's file is completely written, and a HEAD right after it then reports a short size (seen: 917,504
// of 1,000,000 bytes with the right ETag). Under Node the store is consistent.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver from "s3rver";
import S3Object from "s3rver/lib/models/object.js";
import FilesystemStore from "s3rver/lib/stores/filesystem.js";

// A PUT becomes an object only once its whole body is stored, as on S3: s3rver writes the body straight
// into the object's file, so a store killed mid-PUT kept a truncated object that a HEAD then reported
// (seen: the uploader, finding a different size under its file's name, rightly refused to write over
// it, and the test waited out its 90 s). Here the body goes to a file beside it (a name listings skip)
// and is renamed into place when complete.
let uploads = 0;
FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, "object");
  await mkdir(dirname(objectPath), { recursive: true });
  const partial = `${objectPath}.uploading-${process.pid}-${++uploads}`;
  const md5 = createHash("md5");
  let size = 0;
  const source = Buffer.isBuffer(object.content) ? [object.content] : object.content;
  await pipeline(
    source,
    new Transform({
      transform(chunk, encoding, done) {
        md5.update(chunk, encoding);
        size += chunk.length;
        done(null, chunk);
      },
    }),
    createWriteStream(partial),
  );
  await rename(partial, objectPath);
  // A kill right here leaves the object without its metadata files: s3rver then computes the MD5 from
  // the object and serves no stored headers, which is consistent.
  const digest = md5.digest("hex");
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

// s3rver writes an object's metadata and MD5 files in place, so a store killed mid-write kept a
// truncated metadata.json, and every HEAD of that key answered 500 from then on (seen: the uploader
// retried it for 90 s). The same files, each written beside its name and renamed into place.
FilesystemStore.prototype.putMetadata = async function putMetadata(bucket, key, metadata, md5) {
  const kept = Object.entries(metadata).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith("x-amz-meta-"));
  if (md5) await writeWhole(this.getResourcePath(bucket, key, "object.md5"), md5);
  await writeWhole(this.getResourcePath(bucket, key, "metadata.json"), JSON.stringify(Object.fromEntries(kept), null, 2));
};

async function writeWhole(path, text) {
  const partial = `${path}.uploading-${process.pid}-${++uploads}`;
  await writeFile(partial, text);
  await rename(partial, path);
}

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
