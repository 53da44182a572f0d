/**
 * One measured run of one S3 client on the runtime that runs this file (Bun or Deno), started by
 * bench/s3/s3.bench.ts in a fresh process so import times and CPU are this client's alone. It lives
 * beside the candidates' package.json so their bare names resolve from the candidates' node_modules on
 * both runtimes. Prints one JSON line.
 *
 *   run.ts <ours|aws4fetch|aws-sdk> <endpoint> <bucket> <files dir>
 *
 * Every client does the same work: each small file in one PUT followed by a HEAD that checks the size,
 * then the big file as a multipart upload (8 MiB parts, 4 in flight, read from disk part by part) and a
 * HEAD. The candidates are loaded by dynamic import of a computed name, so the project typechecks
 * without them installed.
 */
import { createReadStream, readdirSync, statSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";

const [candidate, endpoint, bucket, filesDir] = process.argv.slice(2) as [string, string, string, string];
const region = "us-east-1";
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const PART = 8 * 1024 * 1024;
const LANES = 4;

interface Uploader {
  putSmall(key: string, path: string): Promise<void>;
  putBig(key: string, path: string): Promise<void>;
}

// deno-lint-ignore no-explicit-any
type Any = any;
const load = (name: string): Promise<Any> => import(name);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const uploader = await build(candidate);
const importMs = performance.now() - t0;

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const small = readdirSync(join(filesDir, "small")).sort();
const smallBytes = small.reduce((n, f) => n + statSync(join(filesDir, "small", f)).size, 0);
const s0 = performance.now();
for (const f of small) await uploader.putSmall(`${candidate}/small/${f}`, join(filesDir, "small", f));
const smallMs = performance.now() - s0;

const bigBytes = statSync(join(filesDir, "big.bin")).size;
const b0 = performance.now();
await uploader.putBig(`${candidate}/big.bin`, join(filesDir, "big.bin"));
const bigMs = performance.now() - b0;
clearInterval(sampler);
const cpu = process.cpuUsage(cpu0);

console.log(
  JSON.stringify({
    candidate,
    importMs: Math.round(importMs),
    small: { files: small.length, ms: Math.round(smallMs), mbps: +(smallBytes / 1e6 / (smallMs / 1000)).toFixed(1) },
    big: { mb: +(bigBytes / 1e6).toFixed(1), ms: Math.round(bigMs), mbps: +(bigBytes / 1e6 / (bigMs / 1000)).toFixed(1) },
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: Math.round(peakRss / 1e6),
  }),
);
process.exit(0);

async function build(name: string): Promise<Uploader> {
  if (name === "ours") return ours();
  if (name === "aws4fetch") return viaAws4fetch();
  if (name === "aws-sdk") return viaSdk();
  throw new Error(`unknown candidate ${name}`);
}

async function ours(): Promise<Uploader> {
  const s3 = await load("../../../adapters/s3/index.ts");
  const client = new s3.S3Client({ bucket, region, credentials, endpoint });
  const opts = { multipartThresholdBytes: 16 * 1024 * 1024, partSizeBytes: PART, partConcurrency: LANES };
  return {
    putSmall: (key, path) => s3.uploadFile(client, path, key, opts),
    putBig: (key, path) => s3.uploadFile(client, path, key, opts),
  };
}

/** aws4fetch signs; the S3 calls (PUT, multipart XML, HEAD) are the same few lines any client over it needs. */
async function viaAws4fetch(): Promise<Uploader> {
  const { AwsClient } = await load("aws4fetch");
  const aws = new AwsClient({ ...credentials, region, service: "s3" });
  const url = (key: string, q = "") => `${endpoint}/${bucket}/${key}${q}`;
  const ok = async (res: Response, what: string) => {
    if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  const put = async (key: string, body: Uint8Array, q = "") => {
    const res = await ok(await aws.fetch(url(key, q), { method: "PUT", body }), `PUT ${key}`);
    await res.arrayBuffer();
    return res.headers.get("etag") ?? "";
  };
  const head = async (key: string, size: number) => {
    const res = await ok(await aws.fetch(url(key), { method: "HEAD" }), `HEAD ${key}`);
    if (Number(res.headers.get("content-length")) !== size) throw new Error(`HEAD ${key}: wrong size`);
  };
  return {
    async putSmall(key, path) {
      const body = new Uint8Array(await readFile(path));
      await put(key, body);
      await head(key, body.length);
    },
    async putBig(key, path) {
      const fh = await open(path, "r");
      const size = (await fh.stat()).size;
      const init = await (await ok(await aws.fetch(url(key, "?uploads"), { method: "POST" }), "init")).text();
      const uploadId = /<UploadId>(.*?)<\/UploadId>/.exec(init)![1]!;
      const count = Math.ceil(size / PART);
      const etags: string[] = [];
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < count; i = next++) {
          const len = Math.min(PART, size - i * PART);
          const buf = new Uint8Array(len);
          await fh.read(buf, 0, len, i * PART);
          etags[i] = await put(key, buf, `?partNumber=${i + 1}&uploadId=${uploadId}`);
        }
      };
      await Promise.all(Array.from({ length: LANES }, lane));
      await fh.close();
      const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
      await (await ok(await aws.fetch(url(key, `?uploadId=${uploadId}`), { method: "POST", body: xml }), "complete")).text();
      await head(key, size);
    },
  };
}

async function viaSdk(): Promise<Uploader> {
  const { S3Client, PutObjectCommand, HeadObjectCommand } = await load("@aws-sdk/client-s3");
  const { Upload } = await load("@aws-sdk/lib-storage");
  const client = new S3Client({ region, endpoint, forcePathStyle: true, credentials });
  const head = async (key: string, size: number) => {
    const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    if (out.ContentLength !== size) throw new Error(`HEAD ${key}: wrong size`);
  };
  return {
    async putSmall(key, path) {
      const body = new Uint8Array(await readFile(path));
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      await head(key, body.length);
    },
    async putBig(key, path) {
      const size = statSync(path).size;
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: createReadStream(path) },
        partSize: PART,
        queueSize: LANES,
      });
      await upload.done();
      await head(key, size);
    },
  };
}
