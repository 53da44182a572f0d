/**
 * One process per state directory (a crawl's output directory, a frontier node's data directory): a LOCK
 * file in it holding the owner's pid, so two processes never share one SQLite store. A lock left by a
 * killed process is taken over once its pid is gone, so a `kill -9` never blocks the restart that resumes
 * from the directory.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Either the lock (release it on exit), or the pid of the live process that holds it. */
export type DirLock = { ok: true; release(): void } | { ok: false; holder: number };

/** Takes `<dir>/LOCK` for this process; `dir` must exist. */
export function lockDir(dir: string): DirLock {
  const path = join(dir, "LOCK");
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
