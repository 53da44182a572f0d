/**
 * A small S3 client over `fetch`, signed with SigV4 (sigv4.ts): the handful of operations a spool of
 * finished files needs (put, head, the three multipart calls and abort), plus get, list, delete and
 * create-bucket for tests and operators. Bodies are byte arrays of bounded size (one object below the
 * multipart threshold, or one part), never whole files: upload-file.ts streams a file through it.
 *
 * Every request is signed with the payload's SHA-256, which S3 checks against the body it received
 * (XAmzContentSHA256Mismatch), so bytes damaged on the way never become an object. Each request has its own timeout; a failure is an S3Error whose `retryable`
 * says whether to try again.
 *
 * Addressing: with an endpoint (MinIO, Ceph, a test server) path-style `endpoint/bucket/key`; without
 * one, AWS's regional virtual-hosted endpoint `https://bucket.s3.region.amazonaws.com/key` (path-style
 * when the bucket name has dots, which TLS wildcard certificates cannot cover).
 */
import { createHash } from "node:crypto";
import { EMPTY_SHA256, signRequest, uriEncode, type Credentials } from "./sigv4.ts";
import { escapeXml, responseError, S3Error, transportError, xmlBlocks, xmlValue } from "./errors.ts";

export interface S3ClientOptions {
  bucket: string;
  region: string;
  credentials: Credentials;
  /** Base URL of an S3-compatible service, e.g. `http://127.0.0.1:9000`. Absent: AWS. */
  endpoint?: string;
  /** Each request's deadline, from sending to the end of the response. Default 120 s. */
  requestTimeoutMs?: number;
  /** Epoch-ms clock for signatures (tests inject one). Default Date.now. */
  clock?: () => number;
}

export interface HeadResult {
  size: number;
  /** The ETag without its quotes. */
  etag: string;
}

export interface ListedObject {
  key: string;
  size: number;
  etag: string;
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

interface RequestSpec {
  method: "GET" | "HEAD" | "PUT" | "POST" | "DELETE";
  key?: string;
  query?: Record<string, string>;
  body?: Uint8Array;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Statuses that are answers rather than errors (404 for HEAD of a missing object). */
  accept?: number[];
}

const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export class S3Client {
  readonly bucket: string;
  private readonly base: URL;
  private readonly pathStyle: boolean;
  private readonly timeoutMs: number;
  private readonly clock: () => number;

  constructor(private readonly opts: S3ClientOptions) {
    this.bucket = opts.bucket;
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.clock = opts.clock ?? Date.now;
    if (opts.endpoint) {
      this.base = new URL(opts.endpoint);
      if (this.base.protocol !== "http:" && this.base.protocol !== "https:")
        throw new Error(`S3 endpoint must be http(s), got ${opts.endpoint}`);
      this.pathStyle = true;
    } else {
      this.pathStyle = opts.bucket.includes(".");
      this.base = new URL(
        this.pathStyle ? `https://s3.${opts.region}.amazonaws.com` : `https://${opts.bucket}.s3.${opts.region}.amazonaws.com`,
      );
    }
  }

  /** The URL of `key` (or of the bucket when absent), as requests address it. */
  url(key?: string, query: Record<string, string> = {}): URL {
    const basePath = this.base.pathname.replace(/\/+$/, "");
    const bucketPath = this.pathStyle ? `/${uriEncode(this.bucket)}` : "";
    const keyPath = key === undefined ? (this.pathStyle ? "" : "/") : `/${key.split("/").map(uriEncode).join("/")}`;
    const url = new URL(this.base.origin);
    url.pathname = `${basePath}${bucketPath}${keyPath}` || "/";
    const search = Object.entries(query)
      .map(([k, v]) => (v === "" ? uriEncode(k) : `${uriEncode(k)}=${uriEncode(v)}`))
      .join("&");
    url.search = search;
    return url;
  }

  /** Stores `body` as `key` in one request; resolves with the ETag the store computed. */
  async putObject(key: string, body: Uint8Array, signal?: AbortSignal): Promise<{ etag: string }> {
    const res = await this.send(`PUT ${key}`, { method: "PUT", key, body, signal });
    await res.arrayBuffer();
    return { etag: etagOf(res) };
  }

  /** Size and ETag of `key`, or undefined when there is no such object. */
  async headObject(key: string, signal?: AbortSignal): Promise<HeadResult | undefined> {
    const res = await this.send(`HEAD ${key}`, { method: "HEAD", key, signal, accept: [404] });
    await res.arrayBuffer();
    if (res.status === 404) return undefined;
    return { size: Number(res.headers.get("content-length") ?? NaN), etag: etagOf(res) };
  }

  async createMultipartUpload(key: string, signal?: AbortSignal): Promise<string> {
    const res = await this.send(`start multipart ${key}`, { method: "POST", key, query: { uploads: "" }, signal });
    const uploadId = xmlValue(await res.text(), "UploadId");
    if (!uploadId) throw new S3Error(`start multipart ${key}: the response has no UploadId`, res.status, "MalformedResponse", true);
    return uploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array, signal?: AbortSignal): Promise<string> {
    const res = await this.send(`part ${partNumber} of ${key}`, {
      method: "PUT",
      key,
      query: { partNumber: String(partNumber), uploadId },
      body,
      signal,
    });
    await res.arrayBuffer();
    return etagOf(res);
  }

  /** Joins the parts into the object; resolves with the object's ETag. */
  async completeMultipartUpload(key: string, uploadId: string, parts: readonly CompletedPart[], signal?: AbortSignal): Promise<string> {
    const xml =
      "<CompleteMultipartUpload>" +
      parts.map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>"${escapeXml(p.etag)}"</ETag></Part>`).join("") +
      "</CompleteMultipartUpload>";
    const res = await this.send(`complete multipart ${key}`, {
      method: "POST",
      key,
      query: { uploadId },
      body: new TextEncoder().encode(xml),
      signal,
    });
    // S3 may answer 200 and still report an error in the body (the response starts before the join ends).
    const text = await res.text();
    if (xmlValue(text, "Code")) throw responseError(`complete multipart ${key}`, 500, text);
    const etag = xmlValue(text, "ETag");
    return etag ? unquote(etag) : etagOf(res);
  }

  async abortMultipartUpload(key: string, uploadId: string, signal?: AbortSignal): Promise<void> {
    const res = await this.send(`abort multipart ${key}`, { method: "DELETE", key, query: { uploadId }, signal, accept: [404] });
    await res.arrayBuffer();
  }

  /** The object's body as a stream, or undefined when there is no such object. */
  async getObject(key: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    const res = await this.send(`GET ${key}`, { method: "GET", key, signal, accept: [404] });
    if (res.status === 404) {
      await res.arrayBuffer();
      return undefined;
    }
    return res.body ?? new ReadableStream({ start: (c) => c.close() });
  }

  /** Every object whose key starts with `prefix`, in key order (ListObjectsV2, page by page). */
  async listObjects(prefix = "", signal?: AbortSignal): Promise<ListedObject[]> {
    const out: ListedObject[] = [];
    let token: string | undefined;
    do {
      const query: Record<string, string> = { "list-type": "2", prefix };
      if (token) query["continuation-token"] = token;
      const res = await this.send(`list ${prefix}`, { method: "GET", query, signal });
      const xml = await res.text();
      for (const block of xmlBlocks(xml, "Contents")) {
        out.push({
          key: xmlValue(block, "Key") ?? "",
          size: Number(xmlValue(block, "Size") ?? NaN),
          etag: unquote(xmlValue(block, "ETag") ?? ""),
        });
      }
      token = xmlValue(xml, "IsTruncated") === "true" ? xmlValue(xml, "NextContinuationToken") : undefined;
    } while (token);
    return out;
  }

  async deleteObject(key: string, signal?: AbortSignal): Promise<void> {
    const res = await this.send(`DELETE ${key}`, { method: "DELETE", key, signal, accept: [404] });
    await res.arrayBuffer();
  }

  /** Creates the bucket; an existing bucket of ours is fine. */
  async createBucket(signal?: AbortSignal): Promise<void> {
    const res = await this.send(`create bucket ${this.bucket}`, { method: "PUT", signal, accept: [409] });
    await res.arrayBuffer();
  }

  private async send(what: string, spec: RequestSpec): Promise<Response> {
    const url = this.url(spec.key, spec.query);
    const headers: Record<string, string> = { ...spec.headers };
    let payloadHash = EMPTY_SHA256;
    // The signed SHA-256 of the body is also S3's integrity check (XAmzContentSHA256Mismatch): no
    // Content-MD5 on top, which would cost a second pass over every byte for the same guarantee.
    if (spec.body) payloadHash = createHash("sha256").update(spec.body).digest("hex");
    const signed = signRequest({
      method: spec.method,
      url,
      headers,
      payloadHash,
      credentials: this.opts.credentials,
      region: this.opts.region,
      now: this.clock(),
    });
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(url, { method: spec.method, headers: signed, body: spec.body, signal, redirect: "manual" });
    } catch (error) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      throw transportError(what, error);
    }
    if ((res.status >= 200 && res.status < 300) || spec.accept?.includes(res.status)) return res;
    const text = spec.method === "HEAD" ? "" : await res.text().catch(() => "");
    throw responseError(what, res.status, text);
  }
}

function etagOf(res: Response): string {
  return unquote(res.headers.get("etag") ?? "");
}

function unquote(etag: string): string {
  return etag.replace(/^"|"$/g, "");
}
