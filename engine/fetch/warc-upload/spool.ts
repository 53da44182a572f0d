/**
 * The local side of WARC upload: where files wait, in which state, and how a crash is recovered. The
 * state of a file is where it lies, so it survives any kill without a journal:
 *
 *   <warcDir>/x.warc.gz + x.cdxj            being written (or left open by a crash), with x.warc.wet.gz
 *   <warcDir>/finished/x.warc.gz + x.cdxj   finished: complete, never written again, waiting for upload
 *   (gone)                                  uploaded, confirmed by the store, then deleted here
 *
 * The writer moves a file into finished/ when it rolls it (warc/writer.ts, `finishedDir`). `recover()`,
 * run before any writer opens the directory, does the same for what a crash left behind: each WARC is
 * repaired first (a torn last record cut off, repair.ts, starting at its last indexed record), then moved
 * with its index and media list (`x.media.jsonl`, when its pages named media; both are the WARC's
 * companions). Nothing is renamed on the way, so a file's name, which is its object key, never
 * changes: an upload repeated after a kill replaces the same object.
 */
import { mkdir, open, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CdxjLog, INDEX_FILE, indexFileOf, MEDIA_LIST_FILE, WET_SUFFIX } from "../warc/index.ts";
import { repairWarcTail } from "./repair.ts";

/** Subdirectory of the WARC directory holding finished files. */
export const FINISHED_DIR = "finished";

/**
 * The files that travel with a WARC file `x.warc.gz`: its index `x.cdxj`, its media list `x.media.jsonl`
 * and its WET file `x.warc.wet.gz` (the pages' text).
 */
const COMPANIONS = [".cdxj", ".media.jsonl", WET_SUFFIX] as const;

/** The WARC base name (`x`) a companion file belongs to, or undefined when `name` is not a companion. */
export function companionBase(name: string): string | undefined {
  for (const suffix of COMPANIONS) {
    // No suffix is the end of another (".media.jsonl" does not end in ".cdxj", ".warc.wet.gz" not in ".warc.gz"),
    // so the order does not matter.
    if (name.endsWith(suffix)) return name.slice(0, -suffix.length);
  }
  return undefined;
}

export interface SpoolEntry {
  /** File name, which is also the object name in the store. */
  name: string;
  path: string;
  size: number;
}

export interface RecoveryReport {
  /** Files moved to finished/ (WARC files and indexes). */
  moved: string[];
  /** Bytes of torn records cut off the WARC files. */
  droppedBytes: number;
}

export class WarcSpool {
  readonly finishedDir: string;

  constructor(readonly warcDir: string) {
    this.finishedDir = join(warcDir, FINISHED_DIR);
  }

  /**
   * Finishes what a previous run left open in the WARC directory and moves it to finished/. Must run
   * before a writer opens the directory: it takes every WARC file there to be abandoned. The shared
   * index.cdxj of a run without upload stays where it is.
   */
  async recover(): Promise<RecoveryReport> {
    await mkdir(this.finishedDir, { recursive: true });
    const report: RecoveryReport = { moved: [], droppedBytes: 0 };
    const names = (await readdir(this.warcDir)).sort();
    for (const name of names.filter((n) => n.endsWith(".warc.gz"))) {
      const index = await this.findIndex(indexFileOf(name));
      const from = index ? await endOfLastIndexedRecord(index) : 0;
      const { droppedBytes } = await repairWarcTail(join(this.warcDir, name), from);
      report.droppedBytes += droppedBytes;
      await rename(join(this.warcDir, name), join(this.finishedDir, name));
      report.moved.push(name);
      // A kill between creating a WARC file and its index leaves a file with no index, which then holds
      // nothing but its warcinfo record (the index is opened before the first response is written): it
      // gets the empty index it would have had, so every shipped WARC file has its index beside it.
      if (!index) await writeFile(join(this.finishedDir, indexFileOf(name)), "", { flag: "wx" }).catch(ignoreExisting);
    }
    // The shared index.cdxj and media.jsonl of a run without upload stay where they are.
    for (const name of names.filter((n) => companionBase(n) !== undefined && n !== INDEX_FILE && n !== MEDIA_LIST_FILE)) {
      // A WET file left open has the same damage a WARC file can have, a torn last member. Nothing indexes
      // its records, so the walk starts at its beginning: it holds text only, about a tenth of its WARC file.
      if (name.endsWith(WET_SUFFIX)) report.droppedBytes += (await repairWarcTail(join(this.warcDir, name), 0)).droppedBytes;
      await rename(join(this.warcDir, name), join(this.finishedDir, name));
      report.moved.push(name);
    }
    return report;
  }

  /**
   * Finished files in upload order: by name, each WARC before its companions (an index or media list never
   * lands before its WARC).
   */
  async list(): Promise<SpoolEntry[]> {
    const names = await readdir(this.finishedDir).catch(() => [] as string[]);
    const entries: SpoolEntry[] = [];
    for (const name of names) {
      if (!name.endsWith(".warc.gz") && companionBase(name) === undefined) continue;
      const path = join(this.finishedDir, name);
      const size = await stat(path).then(
        (s) => s.size,
        () => undefined,
      );
      if (size !== undefined) entries.push({ name, path, size });
    }
    const key = (n: string) => (n.endsWith(".warc.gz") ? `${n.slice(0, -".warc.gz".length)}\u0000` : `${companionBase(n)}\u0001${n}`);
    return entries.sort((a, b) => (key(a.name) < key(b.name) ? -1 : 1));
  }

  /** Deletes a finished file (after its upload was confirmed). */
  async remove(name: string): Promise<void> {
    await unlink(join(this.finishedDir, name));
  }

  /** The index of a WARC, whether still beside it or already moved by an interrupted finish. */
  private async findIndex(name: string): Promise<string | undefined> {
    for (const dir of [this.warcDir, this.finishedDir]) {
      const path = join(dir, name);
      if (
        await stat(path).then(
          () => true,
          () => false,
        )
      )
        return path;
    }
    return undefined;
  }
}

/**
 * Where the last record the index knows ends (offset + length of its last line), after cutting a torn
 * last line off the index itself; 0 when the index is empty.
 */
async function endOfLastIndexedRecord(indexPath: string): Promise<number> {
  await (await CdxjLog.open(indexPath)).close(); // repairs a torn tail
  const fh = await open(indexPath, "r");
  try {
    const size = (await fh.stat()).size;
    const tail = new Uint8Array(Math.min(size, 64 * 1024));
    await fh.read(tail, 0, tail.length, size - tail.length);
    const lines = new TextDecoder().decode(tail).trimEnd().split("\n");
    const last = lines.at(-1) ?? "";
    const json = last.slice(last.indexOf("{"));
    if (!json.startsWith("{")) return 0;
    const fields = JSON.parse(json) as { offset?: string; length?: string };
    const end = Number(fields.offset) + Number(fields.length);
    return Number.isSafeInteger(end) && end > 0 ? end : 0;
  } catch {
    return 0;
  } finally {
    await fh.close();
  }
}

/** An index file created meanwhile is the one to keep. */
function ignoreExisting(error: NodeJS.ErrnoException): void {
  if (error.code !== "EEXIST") throw error;
}
