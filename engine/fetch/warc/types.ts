/**
 * The shapes the WARC writer accepts and returns. A `CapturedExchange` is one HTTP request and its
 * response as the fetch step saw them, with the body already decompressed; the writer turns it into a
 * request record and a response record.
 */
import type { RecordLocation } from "../../../core/model/index.ts";

export type { CapturedExchange, MediaRef, PageText, RecordLocation, Revisit } from "../../../core/model/index.ts";

export interface WarcWriterOptions {
  /** Directory for the .warc.gz files and index.cdxj; created if missing. */
  dir: string;
  /** File name prefix. Default "crawl". */
  prefix?: string;
  /** Start a new file once the current one has reached this size. Default 1 GB (10^9 bytes). */
  maxFileBytes?: number;
  /** Also finish a file this long after it was started, even if no write comes. Default: no age limit. */
  maxFileAgeMs?: number;
  /**
   * Upload mode: each file gets its own CDXJ index (`x.cdxj` beside `x.warc.gz`) instead of the shared
   * index.cdxj, and a finished file is moved here with its index, for the upload spool to ship.
   */
  finishedDir?: string;
  /**
   * Keep pages' text: a WET file beside each WARC file, one `conversion` record per exchange that carries
   * `text` (wet.ts). Default false; the processes pass their `--text` setting.
   */
  wet?: boolean;
  /**
   * Upload mode: the object store's location (`s3://bucket/prefix/`). A file's object key is its name under
   * it and is never changed, so the locations a write returns name the object URL the file has once
   * uploaded (the local copy is deleted then); ignored without `finishedDir`.
   */
  objectLocation?: string;
  /** gzip level of each record, 1 (fast) to 9 (small). Default 1: see DEFAULT_COMPRESSION_LEVEL. */
  compressionLevel?: number;
  /** Written to each file's warcinfo record. Default "crawler". */
  software?: string;
  /** Epoch-ms clock for file names and warcinfo dates; tests inject one. Default Date.now. */
  clock?: () => number;
}

/** Where a response (or revisit) record landed: enough to read it back with one seek. */
export interface WriteResult {
  /** File name relative to the writer's directory, as in index.cdxj. */
  filename: string;
  /** Byte offset of the response record's gzip member. */
  offset: number;
  /** Length of that gzip member in bytes. */
  length: number;
  /** The same record as results report it: by object URL when uploading (`objectLocation`). */
  warc: RecordLocation;
  /** Where the WET conversion record of the exchange's text went; absent when none was written. */
  text?: RecordLocation;
  /** The response (or revisit) record's WARC-Record-ID, `<urn:uuid:...>`. */
  recordId: string;
}
