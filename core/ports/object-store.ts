/**
 * The object-storage port: where finished files (WARC files and their CDXJ indexes) go to outlive the
 * machine that wrote them. The S3 implementation is adapters/s3; the spool that feeds it decides when a
 * file is finished and when its local copy may go.
 */

/** What the store holds under a name. */
export interface StoredObject {
  size: number;
  /** The store's checksum or version tag for this content (S3: the ETag, without quotes). */
  etag: string;
}

/**
 * Contract:
 *  - `upload(path, name)` copies the local file at `path` to the object `name` (under the store's own
 *    prefix) without holding the whole file in memory, and resolves only once the store confirms that
 *    the object under `name` is the one just written, with the file's size. Uploading a name again
 *    replaces the object: the name is its identity, so repeating an upload after a crash never makes a
 *    second copy under another name.
 *  - `stat(name)` says what the store holds under `name`, or undefined.
 *  - Failures reject with an Error whose boolean `retryable` says whether trying later can help (the
 *    store unreachable, 5xx, throttled) or not until someone changes something (denied, no bucket).
 *    Either way nothing local is touched: deleting the local copy is the caller's decision.
 */
export interface ObjectStore {
  /** Where objects go, for logs and status: e.g. `s3://bucket/prefix/`. */
  readonly location: string;
  upload(path: string, name: string, signal?: AbortSignal): Promise<StoredObject>;
  stat(name: string, signal?: AbortSignal): Promise<StoredObject | undefined>;
}
