/**
 * The ObjectStore port (core/ports) on S3: names become keys under the location's prefix
 * (`s3://bucket/prefix/` + name), uploads go through upload-file.ts (single PUT or multipart, bounded
 * memory, confirmed by HEAD).
 */
import type { ObjectStore, StoredObject } from "../../core/ports/index.ts";
import { S3Client, type S3ClientOptions } from "./client.ts";
import { formatS3Location, type S3Location } from "./location.ts";
import { uploadFile, type UploadFileOptions } from "./upload-file.ts";
import type { S3Error } from "./errors.ts";

export interface S3ObjectStoreOptions extends Omit<S3ClientOptions, "bucket"> {
  location: S3Location;
  upload?: Omit<UploadFileOptions, "signal" | "onRetry">;
  /** Called before a request is sent again after a retryable failure (for counters and logs). */
  onRetry?: (error: S3Error) => void;
}

export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  readonly client: S3Client;

  constructor(private readonly opts: S3ObjectStoreOptions) {
    this.client = new S3Client({ ...opts, bucket: opts.location.bucket });
    this.location = formatS3Location(opts.location);
  }

  /** The key of `name`: the location's prefix plus the name. */
  keyOf(name: string): string {
    return `${this.opts.location.prefix}${name}`;
  }

  async upload(path: string, name: string, signal?: AbortSignal): Promise<StoredObject> {
    const done = await uploadFile(this.client, path, this.keyOf(name), { ...this.opts.upload, signal, onRetry: this.opts.onRetry });
    return { size: done.size, etag: done.etag };
  }

  stat(name: string, signal?: AbortSignal): Promise<StoredObject | undefined> {
    return this.client.headObject(this.keyOf(name), signal);
  }
}
