/**
 * A small filesystem for full-disk tests: a size-limited tmpfs mounted on a fresh directory
 * (`mount -t tmpfs -o size=N`), which needs root, as the tests run here and in CI. `fill` takes the space
 * left with a filler file (leaving as many bytes as asked), `free` removes it; `unmount` lazily unmounts and
 * removes the directory. When the filesystem cannot be mounted it throws with the reason: a full-disk test
 * fails rather than pretends.
 *
 * Uses node:child_process and node:fs only.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  /** The mount point: everything written under it counts against its size. */
  readonly dir: string;
  /** Bytes still free. */
  freeBytes(): number;
  /** Writes a filler until at most `leaveBytes` are free. */
  fill(leaveBytes?: number): void;
  /** Removes the filler. */
  free(): void;
  unmount(): void;
}

export function mountSmallDisk(sizeBytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), "small-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes}`, "tmpfs", dir], { encoding: "utf8" });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `cannot mount a ${sizeBytes}-byte tmpfs on ${dir} for a full-disk test (${(mounted.stderr || mounted.error?.message || "").trim()}): ` +
        "the tests need root (they run as root here and in CI)",
    );
  }
  const filler = join(dir, "filler");
  const freeBytes = () => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    freeBytes,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a");
      try {
        const chunk = new Uint8Array(64 * 1024);
        for (let left = freeBytes() - leaveBytes; left > 0; left = freeBytes() - leaveBytes) {
          try {
            writeSync(fd, chunk, 0, Math.min(chunk.length, left));
          } catch {
            break; // full
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      spawnSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
