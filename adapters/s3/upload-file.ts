/**
 * Copies one local file to one S3 key with bounded memory, and confirms it. A file up to the multipart
 * threshold goes up in one PUT (read whole: at most the threshold in memory); a larger one as a multipart
 * upload, read part by part with at most `partConcurrency` parts in memory at once, so a 1 GB WARC costs
 * a few parts of memory, never its size. Each request is retried in place when it fails in a retryable
 * way (retry.ts); a multipart upload that fails anyway is aborted, so no parts are left behind.
 *
 * Confirmation: after the upload a HEAD must show the key with exactly the file's size and the ETag the
 * upload itself returned. Together with the per-request SHA-256 that S3 checks on arrival, that means: the bytes that arrived are the file's, and the object now under the key is the
 * one just written (not an older one, nor a half-finished one). The ETag is compared with the store's
 * own answer rather than recomputed here, because with KMS encryption S3's ETag is not an MD5.
 */
import { open, type FileHandle } from "node:fs/promises";
import type { S3Client } from "./client.ts";
import { S3Error } from "./errors.ts";
import { DEFAULT_REQUEST_RETRY, withRetry, type RequestRetry } from "./retry.ts";

export interface UploadFileOptions {
  /** Files larger than this go up in parts. Default 16 MiB. */
  multipartThresholdBytes?: number;
  /** Part size (S3: at least 5 MiB, except the last part; at most 10,000 parts). Default 8 MiB. */
  partSizeBytes?: number;
  /** Parts in flight (and in memory) at once. Default 4. */
  partConcurrency?: number;
  retry?: RequestRetry;
  signal?: AbortSignal;
  /** Called before a request is tried again. */
  onRetry?: (error: S3Error) => void;
}

export interface UploadedFile {
  size: number;
  etag: string;
  /** 0 for a single PUT. */
  parts: number;
}

export const MIB = 1024 * 1024;
const MIN_PART = 5 * MIB;
const MAX_PARTS = 10_000;

export async function uploadFile(client: S3Client, path: string, key: string, opts: UploadFileOptions = {}): Promise<UploadedFile> {
  const threshold = opts.multipartThresholdBytes ?? 16 * MIB;
  const retry = opts.retry ?? DEFAULT_REQUEST_RETRY;
  const fh = await open(path, "r");
  try {
    const size = (await fh.stat()).size;
    let uploaded: UploadedFile;
    if (size <= threshold) {
      const body = await readAt(fh, 0, size);
      const { etag } = await withRetry(retry, opts.signal, () => client.putObject(key, body, opts.signal), opts.onRetry);
      uploaded = { size, etag, parts: 0 };
    } else {
      uploaded = await uploadParts(client, fh, size, key, opts, retry);
    }
    await confirm(client, key, uploaded, retry, opts);
    return uploaded;
  } finally {
    await fh.close();
  }
}

async function uploadParts(
  client: S3Client,
  fh: FileHandle,
  size: number,
  key: string,
  opts: UploadFileOptions,
  retry: RequestRetry,
): Promise<UploadedFile> {
  // Grow the part size when the file would need more than S3's 10,000 parts.
  const partSize = Math.max(opts.partSizeBytes ?? 8 * MIB, MIN_PART, Math.ceil(size / MAX_PARTS));
  const count = Math.ceil(size / partSize);
  const concurrency = Math.max(1, opts.partConcurrency ?? 4);
  const uploadId = await withRetry(retry, opts.signal, () => client.createMultipartUpload(key, opts.signal), opts.onRetry);
  try {
    const etags = new Array<string>(count);
    let next = 0;
    // `concurrency` lanes each take the next part number, read it and send it: at most `concurrency`
    // part buffers exist at once.
    const lane = async () => {
      for (let i = next++; i < count; i = next++) {
        const offset = i * partSize;
        const body = await readAt(fh, offset, Math.min(partSize, size - offset));
        etags[i] = await withRetry(retry, opts.signal, () => client.uploadPart(key, uploadId, i + 1, body, opts.signal), opts.onRetry);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
    const parts = etags.map((etag, i) => ({ partNumber: i + 1, etag }));
    const etag = await completeOnce(client, key, uploadId, parts, size, retry, opts);
    return { size, etag, parts: count };
  } catch (error) {
    // Best effort: a store that is down cannot take the abort either; a lifecycle rule on the bucket
    // (abort incomplete multipart uploads after a day) cleans up what is left.
    await client.abortMultipartUpload(key, uploadId).catch(() => {});
    throw error;
  }
}

/**
 * Completes the upload. When a retry of the completion finds the upload gone (NoSuchUpload), the first
 * try may have succeeded with its answer lost: the object is then taken from a HEAD, provided it has the
 * file's size.
 */
async function completeOnce(
  client: S3Client,
  key: string,
  uploadId: string,
  parts: { partNumber: number; etag: string }[],
  size: number,
  retry: RequestRetry,
  opts: UploadFileOptions,
): Promise<string> {
  let tries = 0;
  try {
    return await withRetry(
      retry,
      opts.signal,
      () => {
        tries++;
        return client.completeMultipartUpload(key, uploadId, parts, opts.signal);
      },
      opts.onRetry,
    );
  } catch (error) {
    if (tries > 1 && error instanceof S3Error && error.code === "NoSuchUpload") {
      const head = await client.headObject(key, opts.signal);
      if (head && head.size === size) return head.etag;
    }
    throw error;
  }
}

async function confirm(client: S3Client, key: string, uploaded: UploadedFile, retry: RequestRetry, opts: UploadFileOptions): Promise<void> {
  const head = await withRetry(retry, opts.signal, () => client.headObject(key, opts.signal), opts.onRetry);
  if (!head) throw new S3Error(`verify ${key}: the object is not there after its upload`, 404, "VerifyFailed", true);
  if (head.size !== uploaded.size || (uploaded.etag !== "" && head.etag !== uploaded.etag)) {
    throw new S3Error(
      `verify ${key}: the store holds ${head.size} bytes with ETag ${head.etag}, the upload sent ${uploaded.size} bytes and got ETag ${uploaded.etag}`,
      200,
      "VerifyFailed",
      true,
    );
  }
}

/** Reads exactly `length` bytes at `offset` (a short read means the file shrank: an error, not a short part). */
async function readAt(fh: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
    if (bytesRead === 0)
      throw new Error(`file ended at ${offset + done} bytes while reading ${length} bytes at ${offset}: it changed during the upload`);
    done += bytesRead;
  }
  return buf;
}
