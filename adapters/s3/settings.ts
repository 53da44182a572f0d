/**
 * The settings that say where WARC files are uploaded, as one configuration table (core/config) that
 * every process shipping WARC files reads (fetch nodes, `crawl`): the `s3://bucket/prefix` target, the
 * endpoint and region, and the credentials. The environment variables are the usual AWS ones, so a
 * machine set up for any S3 tool is set up for this one; a flag wins over its variable. Without
 * `--warc-upload` nothing is uploaded and the other rows are not required.
 */
import { tableRows, type FieldSpecs, type ValueKind } from "../../core/config/index.ts";
import type { Credentials } from "./sigv4.ts";
import { formatS3Location, parseS3Location, type S3Location } from "./location.ts";
import { S3ObjectStore } from "./object-store.ts";
import type { S3Error } from "./errors.ts";

export interface S3UploadSettings {
  warcUpload: S3Location | undefined;
  s3Endpoint: string | undefined;
  s3Region: string;
  s3AccessKeyId: string | undefined;
  s3SecretAccessKey: string | undefined;
  s3SessionToken: string | undefined;
}

/** Where and how to reach the store; present only when uploading is on. */
export interface S3Target {
  location: S3Location;
  /** Absent: AWS's regional endpoint. */
  endpoint?: string;
  region: string;
  credentials: Credentials;
}

const location: ValueKind<S3Location | undefined> = {
  kind: "s3-url",
  parse: parseS3Location,
  format: (v) => (v ? formatS3Location(v) : ""),
  check: () => undefined,
};

const endpoint: ValueKind<string | undefined> = {
  kind: "url",
  parse: (raw) => raw.trim().replace(/\/+$/, ""),
  format: (v) => v ?? "",
  check(v) {
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (u.protocol !== "http:" && u.protocol !== "https:") return `must be an http or https URL, got "${v}"`;
      if (u.search || u.hash || u.username) return "must be a plain base URL (no query, fragment or credentials)";
      return undefined;
    } catch {
      return `"${v}" is not a URL`;
    }
  },
};

const token = (what: string): ValueKind<string | undefined> => ({
  kind: "text",
  parse: (raw) => raw.trim(),
  format: (v) => (v === undefined ? "" : "***"),
  check: (v) => (v !== undefined && !/^[\x21-\x7e]+$/.test(v) ? `${what} must be printable ASCII without spaces` : undefined),
});

const region: ValueKind<string> = {
  kind: "region",
  parse: (raw) => raw.trim(),
  format: (v) => v,
  check: (v) => (/^[a-z0-9-]{1,64}$/.test(v) ? undefined : `must look like an S3 region (us-east-1), got "${v}"`),
};

const SPECS: FieldSpecs<S3UploadSettings> = {
  warcUpload: {
    flag: "--warc-upload",
    env: "CRAWL_WARC_UPLOAD",
    default: undefined,
    defaultText: "none: files stay on local disk",
    ...location,
    description:
      "Upload finished WARC files and their CDXJ indexes to s3://bucket/prefix, deleting each local copy once the store confirms it",
  },
  s3Endpoint: {
    flag: "--s3-endpoint",
    env: "AWS_ENDPOINT_URL_S3",
    default: undefined,
    defaultText: "AWS's endpoint of the region",
    ...endpoint,
    description: "Base URL of an S3-compatible store (MinIO, Ceph...); path-style addressing",
  },
  s3Region: { flag: "--s3-region", env: "AWS_REGION", default: "us-east-1", ...region, description: "Region the requests are signed for" },
  s3AccessKeyId: {
    flag: "--s3-access-key-id",
    env: "AWS_ACCESS_KEY_ID",
    default: undefined,
    defaultText: "none",
    ...token("the access key id"),
    description: "Access key id (required with --warc-upload)",
  },
  s3SecretAccessKey: {
    flag: "--s3-secret-access-key",
    env: "AWS_SECRET_ACCESS_KEY",
    default: undefined,
    defaultText: "none",
    ...token("the secret access key"),
    description: "Secret access key (required with --warc-upload; prefer the env var: flags show in the process list)",
  },
  s3SessionToken: {
    flag: "--s3-session-token",
    env: "AWS_SESSION_TOKEN",
    default: undefined,
    defaultText: "none",
    ...token("the session token"),
    description: "Session token of temporary credentials",
  },
};

/** The table, in help order. */
export const S3_UPLOAD_SETTINGS = tableRows(SPECS);

/** The target when uploading is on, undefined when off; missing credentials are added to `problems`. */
export function resolveS3Target(values: S3UploadSettings, problems: string[]): S3Target | undefined {
  if (!values.warcUpload) return undefined;
  const missing = [
    values.s3AccessKeyId === undefined ? "--s3-access-key-id / AWS_ACCESS_KEY_ID" : undefined,
    values.s3SecretAccessKey === undefined ? "--s3-secret-access-key / AWS_SECRET_ACCESS_KEY" : undefined,
  ].filter((m): m is string => m !== undefined);
  if (missing.length > 0) {
    problems.push(`warcUpload: uploading to ${formatS3Location(values.warcUpload)} needs credentials: set ${missing.join(" and ")}`);
    return undefined;
  }
  return {
    location: values.warcUpload,
    endpoint: values.s3Endpoint,
    region: values.s3Region,
    credentials: { accessKeyId: values.s3AccessKeyId!, secretAccessKey: values.s3SecretAccessKey!, sessionToken: values.s3SessionToken },
  };
}

/** The store for a resolved target; `onRetry` hears every request sent again (for a counter). */
export function s3StoreFor(target: S3Target, onRetry?: (error: S3Error) => void): S3ObjectStore {
  return new S3ObjectStore({
    location: target.location,
    endpoint: target.endpoint,
    region: target.region,
    credentials: target.credentials,
    onRetry,
  });
}

/** One line for start-up logs: where files go, never the secrets. */
export function describeS3Target(t: S3Target | undefined): string {
  if (!t) return "(off)";
  return `${formatS3Location(t.location)} via ${t.endpoint ?? `AWS ${t.region}`} as ${t.credentials.accessKeyId}${t.credentials.sessionToken ? " (session)" : ""}`;
}
