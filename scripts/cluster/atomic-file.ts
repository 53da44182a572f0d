/**
 * Writes a file so that a reader sees the old content or the new one, never a part: the text goes to a
 * temporary file beside it (same directory, so the same filesystem), is flushed, and is renamed over the
 * target. A crash leaves at most a stray `.tmp-<pid>` file, which the next write replaces.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";

export function writeFileAtomic(path: string, text: string, mode = 0o644): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, "w", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
