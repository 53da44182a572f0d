/**
 * Whether a directory's disk has room for a page's WARC records again: writes a few MiB beside the WARC
 * files and removes them, throwing while the disk is full. Synchronous (the frontier probes from inside its
 * dispatch loop) and Node file APIs only, so it runs on Deno too; it runs only while a disk is full, every
 * few seconds.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A page's records need this much room, not just a store row. */
const PROBE_BYTES = 4 * 1024 * 1024;

export function checkDiskRoom(dir: string): void {
  const probe = join(dir, ".disk-probe");
  try {
    writeFileSync(probe, new Uint8Array(PROBE_BYTES));
  } finally {
    rmSync(probe, { force: true });
  }
}
