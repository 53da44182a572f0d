/**
 * Shipping finished WARC files and their CDXJ indexes to object storage: the spool (where a file waits
 * and how a crash is recovered, spool.ts), the repair of a file a crash left open (repair.ts) and the
 * upload loop (uploader.ts). The store itself is a port (core/ports); adapters/s3 implements it.
 * Runtime-neutral (node: built-ins only), so a Deno fetch node runs it unchanged.
 */
export { WarcSpool, FINISHED_DIR, type SpoolEntry, type RecoveryReport } from "./spool.ts";
export { repairWarcTail, type RepairResult } from "./repair.ts";
export { WarcUploader, type WarcUploaderOptions } from "./uploader.ts";
export { WARC_ROLL_SETTINGS, type WarcRollSettings } from "./settings.ts";
export { startWarcUpload, type WarcUploadStarted } from "./start.ts";
