/**
 * One WARC file being written: created exclusively (never reopened, so a file left by a crash is never
 * appended to and keeps whatever valid records it has), opened with its warcinfo record, then appended
 * to in whole gzip members. It tracks its own size, which is the offset of the next record.
 */

import { writeSync } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { WARCSerializer } from "warcio";
import { buildWarcinfo, newRecordId } from "./records.ts";

export class WarcFile {
  private constructor(
    private readonly fh: FileHandle,
    readonly name: string,
    readonly warcinfoId: string,
    private bytes: number,
  ) {}

  /** Creates `dir/name` (failing with EEXIST if it exists) and writes the warcinfo record. */
  static async create(dir: string, name: string, software: string, atMs: number): Promise<WarcFile> {
    const fh = await open(join(dir, name), "wx");
    const id = newRecordId();
    const file = new WarcFile(fh, name, id, 0);
    try {
      await file.append(await WARCSerializer.serialize(buildWarcinfo(name, software, atMs, id), { gzip: true }));
    } catch (err) {
      // A file without its whole warcinfo record (a full disk) is not a WARC file: it goes.
      await fh.close().catch(() => {});
      await unlink(join(dir, name)).catch(() => {});
      throw err;
    }
    return file;
  }

  get size(): number {
    return this.bytes;
  }

  /**
   * Appends `data` with plain write(2) calls on the file's descriptor: a record is handed to the OS in a
   * few microseconds, where the promise-based write cost four times the CPU (a round trip through a thread
   * pool) for each page. Stays async so callers need not care.
   */
  async append(data: Uint8Array): Promise<void> {
    let done = 0;
    while (done < data.length) {
      // At an explicit position: after `truncate` the next record goes exactly where the cut was.
      const bytesWritten = writeSync(this.fh.fd, data, done, data.length - done, this.bytes);
      if (bytesWritten <= 0) throw new Error(`WarcFile ${this.name}: write made no progress`);
      done += bytesWritten;
      this.bytes += bytesWritten;
    }
  }

  /** Cuts the file back to `size` bytes (a record whose write failed part-way, e.g. on a full disk). */
  async truncate(size: number): Promise<void> {
    await this.fh.truncate(size);
    this.bytes = size;
  }

  /** Flushes to disk and closes; errors on flush are reported but the handle is closed regardless. */
  async close(): Promise<void> {
    try {
      await this.fh.datasync();
    } finally {
      await this.fh.close();
    }
  }
}
