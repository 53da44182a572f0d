/**
 * The store step of the fetch path: WARC 1.1 files (request + response or revisit records, and a metadata
 * record listing a page's media, each its own gzip member, serialized as warcio would write them) with a
 * CDXJ index and a media list beside them, plus readers (warcio's parser) for tests and export.
 * Runtime-neutral: node: built-ins and warcio only (Bun's gzip when on Bun), so it runs on Bun and Deno.
 */

export { WarcWriter, INDEX_FILE } from "./writer.ts";
export type { CapturedExchange, WarcWriterOptions, WriteResult } from "./types.ts";
export { serializeConversion, wetBlock, wetFileOf, WET_SUFFIX } from "./wet.ts";
export { readRecordAt, readWarc, type WarcRecordView } from "./read.ts";
export { surt } from "./surt.ts";
export { cdxjLine, CdxjLog, type CdxjEntry } from "./cdxj.ts";
export { indexFileOf } from "./file-naming.ts";
export { MEDIA_LIST_FILE, mediaListOf } from "./media-list.ts";
export { REVISIT_PROFILES } from "./records.ts";
export { renderedRecords, type RenderedCapture } from "./rendered-records.ts";
