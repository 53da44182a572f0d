/**
 * Turns WARC upload on for a process that writes WARC files (the fetch node, `crawl`): recovers what a
 * previous run left in the WARC directory (repairs a file left open, moves finished files to the spool),
 * builds the S3 store from the resolved settings, and starts the upload loop. Call it before the WARC
 * writer opens the directory; give the writer `finishedDir` so it hands its finished files to the spool.
 * The caller closes the returned uploader after the writer (so the last file is shipped too).
 */
import { S3ObjectStore, type S3Target } from "../adapters/s3/index.ts";
import type { Log } from "../adapters/log/index.ts";
import type { Counters } from "../core/stats/index.ts";
import { WarcSpool, WarcUploader } from "./warc-upload/index.ts";

export interface WarcUploadStarted {
  uploader: WarcUploader;
  /** Where the writer puts finished files (WarcWriterOptions.finishedDir). */
  finishedDir: string;
}

export async function startWarcUpload(opts: { warcDir: string; target: S3Target; counters: Counters; log: Log; pollMs?: number }): Promise<WarcUploadStarted> {
  const spool = new WarcSpool(opts.warcDir);
  const recovered = await spool.recover();
  if (recovered.moved.length > 0) {
    opts.log.info("files left by the previous run are queued for upload", { files: recovered.moved.length, tornBytesCut: recovered.droppedBytes });
  }
  const store = new S3ObjectStore({
    location: opts.target.location,
    endpoint: opts.target.endpoint,
    region: opts.target.region,
    credentials: opts.target.credentials,
    onRetry: () => opts.counters.add("warc.upload.request-retries"),
  });
  const uploader = new WarcUploader({ spool, store, counters: opts.counters, log: opts.log, pollMs: opts.pollMs });
  uploader.start();
  opts.log.info("uploading finished WARC files", { to: store.location });
  return { uploader, finishedDir: spool.finishedDir };
}
