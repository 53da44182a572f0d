/**
 * Names WARC files `<prefix>-<YYYYMMDDhhmmss>-<sequence>.warc.gz` (UTC time the file was started,
 * sequence zero-padded to 5 digits). The sequence continues across restarts, one past the highest found
 * in the directory, so names never repeat and sort in writing order even when two files start in the
 * same second.
 */

import { readdir } from "node:fs/promises";

const SEQ_DIGITS = 5;

export function warcFileName(prefix: string, atMs: number, seq: number): string {
  return `${prefix}-${timestamp14(atMs)}-${String(seq).padStart(SEQ_DIGITS, "0")}.warc.gz`;
}

/** `YYYYMMDDhhmmss` in UTC, the timestamp form WARC tools use. */
export function timestamp14(atMs: number): string {
  return new Date(atMs).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** One past the highest sequence among `dir`'s files with this prefix; 1 for a fresh directory. */
export async function nextSequence(dir: string, prefix: string): Promise<number> {
  const pattern = new RegExp(`^${escapeRegExp(prefix)}-\\d{14}-(\\d+)\\.warc\\.gz$`);
  let max = 0;
  for (const name of await readdir(dir)) {
    const m = pattern.exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
