/**
 * S3-compatible object storage over `fetch`, for Bun and Deno alike: a SigV4 signer, a small client
 * (put, head, multipart, get, list, delete), a streaming file upload with bounded memory that confirms
 * what it wrote, and the ObjectStore port of core/ports on top. No SDK: see bench/README.md ("S3
 * client") for the measurements behind that choice. Imports only core/ and node: built-ins.
 */
export { S3Client, type S3ClientOptions, type HeadResult, type ListedObject, type CompletedPart } from "./client.ts";
export { S3Error } from "./errors.ts";
export { parseS3Location, formatS3Location, type S3Location } from "./location.ts";
export { S3ObjectStore, type S3ObjectStoreOptions } from "./object-store.ts";
export { signRequest, type Credentials } from "./sigv4.ts";
export { uploadFile, MIB, type UploadFileOptions, type UploadedFile } from "./upload-file.ts";
export { DEFAULT_REQUEST_RETRY, type RequestRetry } from "./retry.ts";
export { S3_UPLOAD_SETTINGS, resolveS3Target, describeS3Target, s3StoreFor, type S3UploadSettings, type S3Target } from "./settings.ts";
