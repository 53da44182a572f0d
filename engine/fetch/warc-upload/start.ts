/**
 * Turns WARC upload on for a process that writes WARC files (the fetch node, `crawl`): recovers what a
 * previous run left in the WARC directory (repairs a file left open, moves finished files to the spool)
 * and starts the upload loop to the given store. Call it before the WARC writer opens the directory, and
 * give the writer `finishedDir` so it hands its finished files to the spool. The caller closes the
 * returned uploader after the writer (so the last file is shipped too).
 */
import type { Log, ObjectStore } from "../../../core/ports/index.ts";
import type { Counters } from "../../../core/stats/index.ts";
import { WarcSpool } from "./spool.ts";
import { WarcUploader } from "./uploader.ts";

export interface WarcUploadStarted {
  uploader: WarcUploader;
  /** Where the writer puts finished files (WarcWriterOptions.finishedDir). */
  finishedDir: string;
  /** Where the files go (`s3://bucket/prefix/`), so the writer can name records by their object URLs (WarcWriterOptions.objectLocation). */
  objectLocation: string;
}

export async function startWarcUpload(opts: {
  warcDir: string;
  store: ObjectStore;
  counters: Counters;
  log: Log;
  pollMs?: number;
}): Promise<WarcUploadStarted> {
  const spool = new WarcSpool(opts.warcDir);
  const recovered = await spool.recover();
  if (recovered.moved.length > 0) {
    opts.log.info("files left by the previous run are queued for upload", {
      files: recovered.moved.length,
      tornBytesCut: recovered.droppedBytes,
    });
  }
  const uploader = new WarcUploader({ spool, store: opts.store, counters: opts.counters, log: opts.log, pollMs: opts.pollMs });
  uploader.start();
  opts.log.info("uploading finished WARC files", { to: opts.store.location });
  return { uploader, finishedDir: spool.finishedDir, objectLocation: opts.store.location };
}
