/**
 * Whether a directory's disk has room for a page's WARC records again: writes a few MiB beside the WARC
 * files and removes them (rejects while the disk is full). Node file APIs only, so it runs on Deno too.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

const PROBE_BYTES = 4 * 1024 * 1024;

export async function probeDisk(dir: string): Promise<void> {
  const probe = join(dir, ".disk-probe");
  try {
    await writeFile(probe, new Uint8Array(PROBE_BYTES));
  } finally {
    await rm(probe, { force: true });
  }
}
