/**
 * Writes captured exchanges as WARC 1.1, one gzip member per record, rotating files by size, logs each
 * response (or revisit) record to index.cdxj, and each media URL a page names to the media list
 * (media-list.ts). Writes are queued and applied one at a time, so concurrent callers never
 * interleave bytes and offsets are exact. A write resolves only after the record bytes and the index line
 * are handed to the OS; files are fsynced when they are rotated or closed, not per write ("durable-ish":
 * a power cut can lose the last records, a process crash cannot).
 *
 * Records are serialized by `records.ts`, digests included, rather than through warcio's record objects and
 * async serializer, for speed; see there.
 *
 * Crash rules: every open starts a new file, and a write that fails part-way (a full disk) is cut off
 * again at once, so the file ends with a whole record and the writer goes on in it; if even that fails the
 * file is abandoned, so a torn record can only ever be the last thing in a file and every earlier record
 * stays readable. The index line is appended after its record, so the index never points at bytes that
 * were not written.
 *
 * Text (`wet`): beside each WARC file `x.warc.gz` a WET file `x.warc.wet.gz` (wet.ts) gets one `conversion`
 * record per exchange that carries a page's text, naming the response record. It is opened, rolled, moved
 * and cut back with its WARC file; its record is appended after the WARC records, so a crash can leave a
 * page without its text but never a text record naming a record that is not there.
 *
 * Rolling: a file is finished once it reaches `maxFileBytes`, or `maxFileAgeMs` after it was started (a
 * timer, so a quiet writer still finishes its file). With `finishedDir` (upload mode) each file has its
 * own index and media list (`x.warc.gz` + `x.cdxj` + `x.media.jsonl`, the last only when the file's pages
 * name media) instead of the shared index.cdxj and media.jsonl, and a finished set is moved into
 * `finishedDir`, where the upload spool (engine/fetch/warc-upload) takes it; the file itself is never
 * touched again. What a crash leaves in `dir` is the spool's to repair and move on the next start.
 */

import { mkdir, rename, unlink } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { CdxjLog, cdxjLine } from "./cdxj.ts";
import { indexFileOf, nextSequence, recordSequence, warcFileName } from "./file-naming.ts";
import { MEDIA_LIST_FILE, mediaLines, mediaListOf } from "./media-list.ts";
import { serializeExchange } from "./records.ts";
import { renderedRecords, type RenderedCapture } from "./rendered-records.ts";
import { WarcFile } from "./warc-file.ts";
import { serializeConversion, wetFileOf } from "./wet.ts";
import type { CapturedExchange, RecordLocation, WarcWriterOptions, WriteResult } from "./types.ts";

const DEFAULT_MAX_FILE_BYTES = 1_000_000_000;
export const INDEX_FILE = "index.cdxj";

/**
 * gzip level of each record. Level 1 costs about half the CPU of the usual 6 for a third more bytes on
 * typical HTML (measured: 185 vs 390 us and ~15 vs ~10 KB for a 25 KB page); the crawl is CPU-bound long
 * before disk-bound, so the default favours CPU. Archives that favour bytes can set 6 or 9.
 */
export const DEFAULT_COMPRESSION_LEVEL = 1;

/** Bun's own binding of the same zlib, when the writer runs on Bun (on Deno: node:zlib). */
const bunGzipSync = (globalThis as { Bun?: { gzipSync?: (data: Uint8Array, options: { level: number }) => Uint8Array } }).Bun?.gzipSync;

/**
 * One record as one gzip member, compressed in one synchronous call: warcio's own gzip goes through a
 * WHATWG CompressionStream pipe, which cost more than the compression itself. On Bun, `Bun.gzipSync` gives
 * the same deflate stream for less: measured at level 1, 147 against 200 µs for a 25 KB test-web page and
 * 5 against 19 µs for a request record (node:zlib's binding sets up a stream object per call).
 */
function gzipMember(record: Uint8Array, level: number): Uint8Array {
  return bunGzipSync ? bunGzipSync(record, { level }) : gzipSync(record, { level });
}

/** The parts, one after the other, in one buffer. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export class WarcWriter {
  private file: WarcFile | undefined;
  /** The current file's WET file (with `wet`), opened and finished with it. */
  private wetFile: WarcFile | undefined;
  /** The current file's own index (upload mode); the shared `index` otherwise. */
  private fileIndex: CdxjLog | undefined;
  /** The current file's own media list (upload mode), opened on the first media line. */
  private fileMedia: CdxjLog | undefined;
  private fileStartedAt = 0;
  private ageTimer: ReturnType<typeof setTimeout> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly dir: string,
    private readonly prefix: string,
    private readonly maxFileBytes: number,
    private readonly software: string,
    private readonly clock: () => number,
    private seq: number,
    private readonly index: CdxjLog | undefined,
    private readonly media: CdxjLog | undefined,
    private readonly compressionLevel: number,
    private readonly maxFileAgeMs: number | undefined,
    private readonly finishedDir: string | undefined,
    private readonly wet: boolean,
    private readonly objectLocation: string | undefined,
  ) {}

  /** Prepares `opts.dir`; the first file is created on the first write, so an idle writer leaves none. */
  static async open(opts: WarcWriterOptions): Promise<WarcWriter> {
    const prefix = opts.prefix ?? "crawl";
    if (!/^[A-Za-z0-9._-]+$/.test(prefix)) throw new Error(`WarcWriter: prefix "${prefix}" must be a plain file name part`);
    await mkdir(opts.dir, { recursive: true });
    if (opts.finishedDir) await mkdir(opts.finishedDir, { recursive: true });
    const seq = await nextSequence(opts.dir, prefix, opts.finishedDir ? [opts.finishedDir] : []);
    const index = opts.finishedDir ? undefined : await CdxjLog.open(join(opts.dir, INDEX_FILE));
    const media = opts.finishedDir ? undefined : await CdxjLog.open(join(opts.dir, MEDIA_LIST_FILE));
    return new WarcWriter(
      opts.dir,
      prefix,
      opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      opts.software ?? "crawler",
      opts.clock ?? Date.now,
      seq,
      index,
      media,
      opts.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL,
      opts.maxFileAgeMs,
      opts.finishedDir,
      opts.wet ?? false,
      opts.finishedDir ? opts.objectLocation : undefined,
    );
  }

  /** The file currently being appended to, if any (for status displays). */
  get currentFile(): string | undefined {
    return this.file?.name;
  }

  /**
   * Appends the response (or revisit) and request records for `ex`, and its media's metadata record, indexes
   * the response and lists the media. Resolves with where the response record lies. Rejects (and moves on to a new file) if the disk write fails; rejects at once
   * after close().
   */
  write(ex: CapturedExchange): Promise<WriteResult> {
    if (this.closing) return Promise.reject(new Error("WarcWriter is closed"));
    const result = this.queue.then(() => this.writeNow(ex));
    this.queue = result.catch(() => {});
    return result;
  }

  /**
   * Appends records made by `build` (given the file's warcinfo id), one gzip member each, in one write and
   * unindexed: the records that describe a capture already written (rendered-records.ts). Same queue, same
   * crash rules as `write`.
   */
  writeRecords(build: (warcinfoId: string) => Uint8Array[]): Promise<void> {
    if (this.closing) return Promise.reject(new Error("WarcWriter is closed"));
    const result = this.queue.then(async () => {
      const file = await this.openFile();
      const gzipped = build(file.warcinfoId).map((record) => gzipMember(record, this.compressionLevel));
      await this.appendOrCutBack(file, concat(gzipped));
    });
    this.queue = result.catch(() => {});
    return result;
  }

  /** Appends a rendered page's DOM (and screenshot) records, referring to its response (rendered-records.ts). */
  writeRendered(capture: RenderedCapture): Promise<void> {
    return this.writeRecords((warcinfoId) => renderedRecords(capture, warcinfoId));
  }

  /** Waits for queued writes, then flushes and closes the current file and the index. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue;
      try {
        await this.finishFile();
      } finally {
        await this.index?.close();
        await this.media?.close();
      }
    })();
    return this.closing;
  }

  /**
   * The file to write to now: a new one once the current one has reached the size limit or its age. A
   * file overshoots by at most one write, and a write larger than the limit still goes in (alone in its file).
   */
  private async openFile(): Promise<WarcFile> {
    if (this.file && (this.file.size >= this.maxFileBytes || this.tooOld())) await this.finishFile();
    return (this.file ??= await this.startFile());
  }

  /** Appends `bytes` in one write (so a crash rarely splits a capture's records); resolves with where they begin. */
  private async appendOrCutBack(file: WarcFile, bytes: Uint8Array): Promise<number> {
    const offset = file.size;
    try {
      await file.append(bytes);
    } catch (err) {
      await this.cutBack(file, offset);
      throw err;
    }
    return offset;
  }

  private async writeNow(ex: CapturedExchange): Promise<WriteResult> {
    const file = await this.openFile();
    const records = serializeExchange(ex, file.warcinfoId);
    const members = records.metadata ? [records.response, records.request, records.metadata] : [records.response, records.request];
    const gzipped = members.map((record) => gzipMember(record, this.compressionLevel));
    const responseBytes = gzipped[0]!;
    const offset = await this.appendOrCutBack(file, concat(gzipped));

    const placed: WriteResult = {
      filename: file.name,
      offset,
      length: responseBytes.length,
      warc: this.located(file.name, offset, responseBytes.length),
      recordId: records.recordId,
    };
    const wetFile = this.wetFile;
    const wetOffset = wetFile?.size ?? 0;
    try {
      if (wetFile && ex.text && (ex.text.text !== "" || ex.text.title)) {
        const record = serializeConversion(ex.text, records.targetUri, records.date, records.recordId, wetFile.warcinfoId);
        const member = gzipMember(record, this.compressionLevel);
        await wetFile.append(member);
        placed.text = this.located(wetFile.name, wetOffset, member.length);
      }
      // The media list first: should the index then fail, the records go and a media line may name a record
      // that is not there, never the index (what readers go by).
      const lines = mediaLines(ex, file.name);
      if (lines) await (await this.mediaLog(file))!.append(lines);
      await (this.fileIndex ?? this.index)!.append(
        cdxjLine({
          url: records.targetUri,
          warcDate: records.date,
          method: ex.method ?? "GET",
          // A revisit's content type is warc/revisit, as warcio and pywb index it.
          contentType: ex.revisit ? "warc/revisit" : headerValue(ex.responseHeaders, "content-type"),
          status: ex.status,
          payloadDigest: records.payloadDigest,
          ...placed,
        }),
      );
    } catch (err) {
      // The write is refused as a whole: the records go too, the text record with them (the index cuts its
      // own torn line), so a retry does not leave them twice.
      await this.cutBack(file, offset, wetOffset);
      throw err;
    }
    return placed;
  }

  /** How results name a record: by its file's name, or (uploading) by the object URL the file will have. */
  private located(name: string, offset: number, length: number): RecordLocation {
    return { file: this.objectLocation ? `${this.objectLocation}${name}` : name, offset, length };
  }

  /** Where the media lines of `file` go: the shared list, or the file's own (opened on first use). */
  private async mediaLog(file: WarcFile): Promise<CdxjLog | undefined> {
    if (!this.finishedDir) return this.media;
    this.fileMedia ??= await CdxjLog.open(join(this.dir, mediaListOf(file.name)));
    return this.fileMedia;
  }

  /**
   * A write failed part-way (a full disk): the file is cut back to the end of its last whole record, so no
   * torn record is ever left in it, and the next write goes on in the same file. If even the cut fails the
   * file is abandoned, as after a crash: a torn record can then only be the last thing in it (in upload mode
   * the spool repairs it on the next start), and the next write starts a new file.
   */
  private async cutBack(file: WarcFile, offset: number, wetOffset?: number): Promise<void> {
    try {
      if (wetOffset !== undefined && this.wetFile && this.wetFile.size > wetOffset) await this.wetFile.truncate(wetOffset);
      await file.truncate(offset);
      return;
    } catch {
      // abandoned below
    }
    this.file = undefined;
    this.stopAgeTimer();
    await file.close().catch(() => {});
    await this.wetFile?.close().catch(() => {});
    this.wetFile = undefined;
    await this.fileIndex?.close().catch(() => {});
    this.fileIndex = undefined;
    await this.fileMedia?.close().catch(() => {});
    this.fileMedia = undefined;
  }

  private async startFile(): Promise<WarcFile> {
    // 'wx' refuses an existing name (another writer on the same dir, or a clock step back): take the next.
    for (;;) {
      const now = this.clock();
      const seq = this.seq++;
      const name = warcFileName(this.prefix, now, seq);
      try {
        if (this.finishedDir) await recordSequence(this.dir, this.prefix, seq);
        const file = await WarcFile.create(this.dir, name, this.software, now);
        if (this.finishedDir) this.fileIndex = await CdxjLog.open(join(this.dir, indexFileOf(name)));
        // The WET file's name follows its WARC file's, which 'wx' has just made unique.
        if (this.wet) this.wetFile = await this.startWetFile(file, now);
        this.fileStartedAt = now;
        this.startAgeTimer(file);
        return file;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
  }

  /**
   * Creates the WET file of a WARC file just started. If it cannot be (a full disk, a leftover of that name),
   * the WARC file, which holds only its warcinfo record, goes too, so no WARC file is ever without its WET
   * file and no descriptor is left open; the error is the caller's (EEXIST: try the next name).
   */
  private async startWetFile(file: WarcFile, now: number): Promise<WarcFile> {
    try {
      return await WarcFile.create(this.dir, wetFileOf(file.name), this.software, now);
    } catch (err) {
      await file.close().catch(() => {});
      await unlink(join(this.dir, file.name)).catch(() => {});
      await this.fileIndex?.close().catch(() => {});
      if (this.fileIndex) await unlink(join(this.dir, indexFileOf(file.name))).catch(() => {});
      this.fileIndex = undefined;
      throw err;
    }
  }

  /** Closes the current file (and its own index), then hands both to `finishedDir` when set. */
  private async finishFile(): Promise<void> {
    const file = this.file;
    const fileIndex = this.fileIndex;
    const fileMedia = this.fileMedia;
    const wetFile = this.wetFile;
    this.file = undefined;
    this.fileIndex = undefined;
    this.fileMedia = undefined;
    this.wetFile = undefined;
    this.stopAgeTimer();
    if (!file) return;
    try {
      await file.close();
    } finally {
      await wetFile?.close();
      await fileIndex?.close();
      await fileMedia?.close();
    }
    if (this.finishedDir) {
      // The WARC first, then its WET file, index and media list: those in finishedDir always have their WARC there or uploaded.
      await rename(join(this.dir, file.name), join(this.finishedDir, file.name));
      if (wetFile) await rename(join(this.dir, wetFile.name), join(this.finishedDir, wetFile.name));
      if (fileIndex) await rename(join(this.dir, indexFileOf(file.name)), join(this.finishedDir, indexFileOf(file.name)));
      if (fileMedia) await rename(join(this.dir, mediaListOf(file.name)), join(this.finishedDir, mediaListOf(file.name)));
    }
  }

  private tooOld(): boolean {
    return this.maxFileAgeMs !== undefined && this.clock() - this.fileStartedAt >= this.maxFileAgeMs;
  }

  /** Finishes `file` when it reaches its age, through the write queue so it never cuts a write in two. */
  private startAgeTimer(file: WarcFile): void {
    if (this.maxFileAgeMs === undefined) return;
    this.ageTimer = setTimeout(() => {
      this.ageTimer = undefined;
      this.queue = this.queue.then(() => (this.file === file ? this.finishFile() : undefined)).catch(() => {});
    }, this.maxFileAgeMs);
    // A writer nobody closes must not keep the process alive (Node/Bun timers; Deno's are plain numbers).
    (this.ageTimer as { unref?: () => void }).unref?.();
  }

  private stopAgeTimer(): void {
    if (this.ageTimer !== undefined) clearTimeout(this.ageTimer);
    this.ageTimer = undefined;
  }
}

function headerValue(headers: Record<string, string>, lowerName: string): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === lowerName) return value;
  return undefined;
}
