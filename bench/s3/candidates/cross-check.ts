/**
 * Our SigV4 signer (adapters/s3/sigv4.ts) against aws4fetch's, an independent implementation, on random
 * S3 requests: keys with spaces, unicode and reserved characters, sub-resource and valued queries,
 * session tokens, extra headers. The test server does not check signatures, so this is the check beside
 * the S3 documentation's worked examples (adapters/s3/sigv4.test.ts). Prints how many agreed.
 *
 *   bun install --cwd bench/s3/candidates && bun bench/s3/candidates/cross-check.ts
 */
import { randomBytes } from "node:crypto";

// deno-lint-ignore no-explicit-any
type Any = any;
const { AwsV4Signer } = (await import("aws4fetch" as string)) as Any;
const { signRequest, sha256Hex } = (await import("../../../adapters/s3/sigv4.ts" as string)) as Any;

const alphabet = ["a", "Z", "0", "-", "_", ".", "~", " ", "+", "!", "'", "(", ")", "*", "$", "&", "=", "é", "日", "%", "@", ":", ","];
const pick = <T>(xs: readonly T[]) => xs[randomBytes(1)[0]! % xs.length]!;
const word = (n: number, from: readonly string[] = alphabet) =>
  Array.from({ length: 1 + (randomBytes(1)[0]! % n) }, () => pick(from)).join("");
const ascii = alphabet.filter((c) => c.charCodeAt(0) < 128);

const N = Number(process.env["N"] ?? 1000);
let agreed = 0;
for (let i = 0; i < N; i++) {
  const key = Array.from({ length: 1 + (i % 3) }, () => word(12)).join("/");
  const url = new URL(`https://example-bucket.s3.eu-west-1.amazonaws.com/${key.split("/").map(encodeURIComponent).join("/")}`);
  if (i % 4 === 1) url.search = "uploads";
  if (i % 4 === 2) url.search = `partNumber=${i}&uploadId=${encodeURIComponent(word(20))}`;
  if (i % 4 === 3) url.search = `list-type=2&prefix=${encodeURIComponent(word(8))}`;
  const method = pick(["GET", "PUT", "POST", "HEAD", "DELETE"]);
  const payloadHash = i % 2 ? sha256Hex(word(30)) : sha256Hex("");
  const headers: Record<string, string> = i % 3 === 0 ? { "x-amz-meta-note": `n ${word(10, ascii)} e` } : {};
  const credentials = {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: word(40),
    sessionToken: i % 5 === 0 ? word(30, ascii).replace(/ /g, "") || "t" : undefined,
  };
  const now = Date.UTC(2024, i % 12, 1 + (i % 28), i % 24, i % 60, i % 60);
  const ours = signRequest({ method, url, headers, payloadHash, credentials, region: "eu-west-1", now })["authorization"];
  const datetime = new Date(now).toISOString().replace(/[:-]|\.\d{3}/g, "");
  const theirs = await new AwsV4Signer({
    method,
    url: url.toString(),
    headers: { ...headers, "x-amz-content-sha256": payloadHash },
    ...credentials,
    service: "s3",
    region: "eu-west-1",
    datetime,
  }).sign();
  // The two write the header's separators differently ("," vs ", "; S3 reads both): compare the parts.
  const norm = (auth: string | null) => (auth ?? "").replace(/, /g, ",");
  if (norm(theirs.headers.get("authorization")) === norm(ours)) agreed++;
  else if (agreed + 5 > i)
    console.error("differs:", method, url.toString(), "\n ours:  ", ours, "\n theirs:", theirs.headers.get("authorization"));
}
console.log(`${agreed} of ${N} random requests signed identically by adapters/s3 and aws4fetch`);
