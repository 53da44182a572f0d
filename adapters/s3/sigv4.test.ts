import { expect, test } from "bun:test";
import { EMPTY_SHA256, sha256Hex, signRequest, uriEncode } from "./sigv4.ts";

// The worked examples of S3's SigV4 documentation ("Examples: signature calculations"): bucket
// examplebucket in us-east-1, the documentation's example key pair, 2013-05-24T00:00:00Z.
const credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const now = Date.UTC(2013, 4, 24);
const base = "https://examplebucket.s3.amazonaws.com";
const signatureOf = (auth: string | undefined) => /Signature=([0-9a-f]{64})$/.exec(auth ?? "")?.[1];

test("sigv4 - GET object with a Range header signs as the S3 documentation's example", () => {
  const headers = signRequest({
    method: "GET",
    url: new URL(`${base}/test.txt`),
    headers: { Range: "bytes=0-9" },
    payloadHash: EMPTY_SHA256,
    credentials,
    region: "us-east-1",
    now,
  });
  expect(headers["authorization"]).toBe(
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
  );
  expect(headers["x-amz-date"]).toBe("20130524T000000Z");
});

test("sigv4 - PUT object with a body hash, a Date header and an encoded $ in the key signs as the example", () => {
  const body = "Welcome to Amazon S3.";
  expect(sha256Hex(body)).toBe("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const headers = signRequest({
    method: "PUT",
    url: new URL(`${base}/test$file.text`),
    headers: { Date: "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY" },
    payloadHash: sha256Hex(body),
    credentials,
    region: "us-east-1",
    now,
  });
  expect(signatureOf(headers["authorization"])).toBe("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  expect(headers["authorization"]).toContain("SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,");
});

test("sigv4 - a bare sub-resource query (?lifecycle) signs as the example", () => {
  const headers = signRequest({
    method: "GET",
    url: new URL(`${base}/?lifecycle`),
    headers: {},
    payloadHash: EMPTY_SHA256,
    credentials,
    region: "us-east-1",
    now,
  });
  expect(signatureOf(headers["authorization"])).toBe("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
});

test("sigv4 - query parameters are sorted before signing (list objects example)", () => {
  const headers = signRequest({
    method: "GET",
    url: new URL(`${base}/?prefix=J&max-keys=2`),
    headers: {},
    payloadHash: EMPTY_SHA256,
    credentials,
    region: "us-east-1",
    now,
  });
  expect(signatureOf(headers["authorization"])).toBe("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
});

test("sigv4 - a session token is sent and signed; changing any signed input changes the signature", () => {
  const input = {
    method: "PUT",
    url: new URL(`${base}/a/b.warc.gz`),
    headers: {},
    payloadHash: EMPTY_SHA256,
    credentials: { ...credentials, sessionToken: "TOKEN" },
    region: "eu-west-1",
    now,
  };
  const signed = signRequest(input);
  expect(signed["x-amz-security-token"]).toBe("TOKEN");
  expect(signed["authorization"]).toContain("x-amz-security-token");
  const variants = [
    signRequest({ ...input, url: new URL(`${base}/a/c.warc.gz`) }),
    signRequest({ ...input, region: "us-east-1" }),
    signRequest({ ...input, now: now + 1000 }),
    signRequest({ ...input, credentials: { ...input.credentials, sessionToken: "OTHER" } }),
    signRequest({ ...input, payloadHash: sha256Hex("x") }),
  ];
  for (const v of variants) expect(signatureOf(v["authorization"])).not.toBe(signatureOf(signed["authorization"]));
});

test("sigv4 - RFC 3986 encoding: only unreserved characters stay as they are", () => {
  expect(uriEncode("a-z_A.Z~09")).toBe("a-z_A.Z~09");
  expect(uriEncode("a b!'()*$/é")).toBe("a%20b%21%27%28%29%2A%24%2F%C3%A9");
});
