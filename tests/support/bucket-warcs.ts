/**
 * Reads back what a crawler shipped to the test S3 server: every WARC object under a prefix (downloaded
 * to a scratch file and parsed with the project's WARC reader) and every CDXJ index object, so tests
 * check the bucket itself rather than what the uploader says it did.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { S3Client } from "../../adapters/s3/index.ts";
import { readRecordAt, readWarc, type WarcRecordView } from "../../engine/fetch/index.ts";
import { readObject } from "./s3.ts";

export interface BucketWarcs {
  /** Object names under the prefix (the prefix cut off), sorted. */
  names: string[];
  /** Records of each WARC object, by name. */
  records: Map<string, WarcRecordView[]>;
  /** Lines of each CDXJ object, by name; each line's record was found at its offset in its WARC. */
  indexes: Map<string, Array<{ url: string; filename: string; offset: number; length: number }>>;
}

export async function readBucketWarcs(client: S3Client, prefix: string): Promise<BucketWarcs> {
  const names = (await client.listObjects(prefix)).map((o) => o.key.slice(prefix.length)).sort();
  const records = new Map<string, WarcRecordView[]>();
  const indexes = new Map<string, Array<{ url: string; filename: string; offset: number; length: number }>>();
  const scratch = mkdtempSync(join(tmpdir(), "bucket-read-"));
  try {
    for (const name of names.filter((n) => n.endsWith(".warc.gz"))) {
      const path = join(scratch, name.replace(/\//g, "_"));
      writeFileSync(path, (await readObject(client, `${prefix}${name}`))!);
      const list: WarcRecordView[] = [];
      for await (const r of readWarc(path)) list.push(r);
      records.set(name, list);
    }
    for (const name of names.filter((n) => n.endsWith(".cdxj"))) {
      const text = new TextDecoder().decode((await readObject(client, `${prefix}${name}`))!);
      const lines = text
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const j = JSON.parse(line.slice(line.indexOf("{"))) as Record<string, string>;
          return { url: j["url"]!, filename: j["filename"]!, offset: Number(j["offset"]), length: Number(j["length"]) };
        });
      for (const l of lines) {
        const warc = join(scratch, l.filename.replace(/\//g, "_"));
        const at = await readRecordAt(warc, l.offset, l.length).catch(() => undefined);
        if (at?.url !== l.url) throw new Error(`${name}: line for ${l.url} does not point at its record in ${l.filename}`);
      }
      indexes.set(name, lines);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { names, records, indexes };
}

/** Record ids that appear in more than one place (a file uploaded under two names would show here). */
export function repeatedRecordIds(b: BucketWarcs): string[] {
  const seen = new Map<string, number>();
  for (const list of b.records.values())
    for (const r of list) seen.set(r.warcHeaders["WARC-Record-ID"]!, (seen.get(r.warcHeaders["WARC-Record-ID"]!) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}
