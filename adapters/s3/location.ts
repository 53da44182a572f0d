/**
 * `s3://bucket/prefix` as the user writes it, checked and split. The prefix is kept as a key prefix
 * ending in "/" (or empty), so an object's key is always `prefix + name`, whatever slashes the user typed.
 */

export interface S3Location {
  bucket: string;
  /** "" or a key prefix ending in "/" (e.g. "crawls/2025/"). */
  prefix: string;
}

/** Parses `s3://bucket[/prefix]`; throws an Error saying what is wrong. */
export function parseS3Location(raw: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(raw.trim());
  if (!m) throw new Error(`expected s3://bucket/prefix, got "${raw}"`);
  const bucket = m[1]!;
  // S3's bucket naming rules: 3-63 characters, lower-case letters, digits, dots and hyphens, starting and
  // ending with a letter or digit. Anything else is refused here rather than by the store at upload time.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes("..")) {
    throw new Error(`"${bucket}" is not a valid bucket name (3-63 characters: a-z, 0-9, dots and hyphens)`);
  }
  const parts = (m[2] ?? "").split("/").filter((p) => p !== "");
  for (const part of parts) {
    if (part === "." || part === "..") throw new Error(`prefix "${m[2]}" may not contain "." or ".." segments`);
    if (/[\x00-\x1f\x7f\\]/.test(part)) throw new Error(`prefix "${m[2]}" may not contain control characters or backslashes`);
  }
  return { bucket, prefix: parts.length > 0 ? `${parts.join("/")}/` : "" };
}

export function formatS3Location(loc: S3Location): string {
  return `s3://${loc.bucket}/${loc.prefix}`;
}
