/**
 * One crawl per output directory: a LOCK file holding the owner's pid. A lock left by a killed crawl is
 * taken over once its pid is gone, so `kill -9` never blocks a resume.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";

export type Lock = { ok: true; release(): void } | { ok: false; holder: number };

export function acquireLock(path: string): Lock {
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
