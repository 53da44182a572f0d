/**
 * One frontier node per data directory: a LOCK file holding the owner's pid, so two processes never share
 * one SQLite store and one node id. A lock left by a killed node is taken over once its pid is gone, so a
 * `kill -9` never blocks the restart that resumes from the store.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";

export type DataDirLock = { ok: true; release(): void } | { ok: false; holder: number };

export function lockDataDir(path: string): DataDirLock {
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" });
  } catch {
    const holder = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return { ok: false, holder };
    writeFileSync(path, String(process.pid));
  }
  return { ok: true, release: () => rmSync(path, { force: true }) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
