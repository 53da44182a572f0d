/**
 * Names WARC files `<prefix>-<YYYYMMDDhhmmss>-<sequence>.warc.gz` (UTC time the file was started,
 * sequence zero-padded to 5 digits). The sequence continues across restarts, one past the highest found
 * in the directory, so names never repeat and sort in writing order even when two files start in the
 * same second. When finished files leave the directory (uploaded, then deleted), the highest sequence
 * used is also kept in a small marker file, `.<prefix>.sequence`, so a restart never reuses a name that
 * is already in the object store.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const SEQ_DIGITS = 5;

export function warcFileName(prefix: string, atMs: number, seq: number): string {
  return `${prefix}-${timestamp14(atMs)}-${String(seq).padStart(SEQ_DIGITS, "0")}.warc.gz`;
}

/** `YYYYMMDDhhmmss` in UTC, the timestamp form WARC tools use. */
export function timestamp14(atMs: number): string {
  return new Date(atMs).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/**
 * One past the highest sequence among the files with this prefix in `dir` and in `alsoIn` (e.g. where
 * finished files wait for upload), and the one recorded in the marker; 1 for a fresh directory.
 */
export async function nextSequence(dir: string, prefix: string, alsoIn: readonly string[] = []): Promise<number> {
  const pattern = new RegExp(`^${escapeRegExp(prefix)}-\\d{14}-(\\d+)\\.warc\\.gz$`);
  let max = await recordedSequence(dir, prefix);
  for (const d of [dir, ...alsoIn]) {
    for (const name of await readdir(d).catch(() => [] as string[])) {
      const m = pattern.exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
  }
  return max + 1;
}

/** Records `seq` as used, before the file that carries it is created. */
export async function recordSequence(dir: string, prefix: string, seq: number): Promise<void> {
  await writeFile(markerPath(dir, prefix), `${seq}\n`);
}

async function recordedSequence(dir: string, prefix: string): Promise<number> {
  const text = await readFile(markerPath(dir, prefix), "utf8").catch(() => "");
  const n = Number.parseInt(text, 10);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function markerPath(dir: string, prefix: string): string {
  return join(dir, `.${prefix}.sequence`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The per-file CDXJ index beside a WARC file (upload mode): `x.warc.gz` -> `x.cdxj`. */
export function indexFileOf(warcName: string): string {
  return warcName.replace(/\.warc\.gz$/, "") + ".cdxj";
}
