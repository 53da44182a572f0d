/**
 * The upload loop: ships each finished file of the spool to the object store and deletes the local copy
 * only once the store has confirmed the object (ObjectStore.upload resolves only then). Files go one at a
 * time, in the spool's order (a WARC before its index); a failure ends the round and the loop waits,
 * doubling the wait from `firstRetryMs` up to `maxRetryMs`, then starts again from the first file still
 * waiting. A store that is down therefore costs nothing but disk: files wait and go when it is back, and
 * nothing is ever given up on. `pendingBytes` (a gauge) says how much waits, so intake can be stopped
 * before the disk fills.
 *
 * Before each upload the store is asked what it already holds under the name. The same size means an
 * upload interrupted by a kill after the store had it: it is uploaded again over the same key. A
 * different size means another file already has that name (which the writer's sequence marker prevents):
 * the local file is kept, never written over the other, and the conflict is logged and counted. A store
 * that refuses the question (no permission to list) gets the upload without the check.
 *
 * `close(drainMs)` keeps uploading until the spool is empty or the time is up, then aborts the upload in
 * flight; what is left is uploaded by the next start.
 */
import { errorFields } from "../../../core/errors/index.ts";
import type { Log, ObjectStore } from "../../../core/ports/index.ts";
import type { Counters } from "../../../core/stats/index.ts";
import { companionBase, type WarcSpool } from "./spool.ts";

export interface WarcUploaderOptions {
  spool: WarcSpool;
  store: ObjectStore;
  counters: Counters;
  log: Log;
  /** How often to look for newly finished files when idle. Default 1 s. */
  pollMs?: number;
  /** First wait after a failed round; doubles per failed round. Default 1 s. */
  firstRetryMs?: number;
  /**
   * Longest wait between failed rounds. Default 30 s: a round against a store that is down costs one
   * failed request, and a store that is back is used again within half a minute.
   */
  maxRetryMs?: number;
}

export class WarcUploader {
  private stopping = false;
  private failures = 0;
  private pending = { bytes: 0, files: 0 };
  private wake: (() => void) | undefined;
  private readonly inFlight = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly pollMs: number;
  private readonly firstRetryMs: number;
  private readonly maxRetryMs: number;

  constructor(private readonly opts: WarcUploaderOptions) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.firstRetryMs = opts.firstRetryMs ?? 1_000;
    this.maxRetryMs = opts.maxRetryMs ?? 30_000;
  }

  start(): void {
    // The loop catches every upload failure itself; anything else ends it, loudly, with the files kept.
    this.loop ??= this.run().catch((error: unknown) => {
      this.opts.log.error("the upload loop stopped; finished files stay on disk until the next start", errorFields(error));
    });
  }

  /** Looks at the spool now instead of at the next poll (a file was just finished). */
  kick(): void {
    this.wake?.();
  }

  /** For /metrics and the node record: what waits for upload, and how many rounds failed in a row. */
  gauges(): Record<string, number> {
    return {
      "warc.upload.pending.bytes": this.pending.bytes,
      "warc.upload.pending.files": this.pending.files,
      "warc.upload.failing.rounds": this.failures,
    };
  }

  get pendingBytes(): number {
    return this.pending.bytes;
  }

  /**
   * Uploads what is waiting for at most `drainMs`, then stops (aborting an upload still running).
   * Resolves with the files left for the next start.
   */
  async close(drainMs = 0): Promise<{ filesLeft: number; bytesLeft: number }> {
    this.start();
    const deadline = setTimeout(() => {
      this.stopping = true;
      this.inFlight.abort(new Error("upload stopped: drain time is over"));
      this.wake?.();
    }, drainMs);
    this.draining = true;
    this.wake?.();
    await this.loop;
    clearTimeout(deadline);
    return { filesLeft: this.pending.files, bytesLeft: this.pending.bytes };
  }

  private draining = false;
  private warnedNoStat = false;

  private async run(): Promise<void> {
    const { spool, counters, log } = this.opts;
    while (!this.stopping) {
      const entries = await spool.list();
      this.setPending(entries);
      if (entries.length === 0) {
        if (this.draining) break;
        await this.sleep(this.pollMs);
        continue;
      }
      let failed = false;
      const failedWarcs = new Set<string>();
      for (const entry of entries) {
        if (this.stopping) break;
        // An index or media list goes up only after its WARC: skip it when the WARC failed this round.
        const base = companionBase(entry.name);
        if (base !== undefined && failedWarcs.has(base)) continue;
        try {
          await this.ship(entry.name, entry.path, entry.size);
          counters.add("warc.upload.files");
          counters.add("warc.upload.bytes", entry.size);
          if (this.failures > 0) log.info("uploads work again", { afterFailedRounds: this.failures, store: this.opts.store.location });
          this.failures = 0;
          this.setPending(await spool.list());
        } catch (error) {
          if (this.stopping) break;
          failed = true;
          if (entry.name.endsWith(".warc.gz")) failedWarcs.add(entry.name.slice(0, -".warc.gz".length));
          counters.add("warc.upload.failures");
          const retryable = (error as { retryable?: boolean }).retryable !== false;
          const fields = errorFields(error, { file: entry.name, store: this.opts.store.location, willRetry: true });
          if (retryable) log.warn("upload failed; the file stays on disk and is retried", fields);
          else log.error("upload refused by the store; the file stays on disk and is retried until the store accepts it", fields);
          break;
        }
      }
      if (failed && !this.stopping) {
        this.failures++;
        await this.sleep(Math.min(this.maxRetryMs, this.firstRetryMs * 2 ** (this.failures - 1)));
      }
    }
    this.setPending(await spool.list());
  }

  private async ship(name: string, path: string, size: number): Promise<void> {
    const { store, spool, counters, log } = this.opts;
    const signal = this.inFlight.signal;
    let existing: Awaited<ReturnType<ObjectStore["stat"]>>;
    try {
      existing = await store.stat(name, signal);
    } catch (error) {
      // A store that refuses the look (S3 without s3:ListBucket answers 403 for a missing key) is not a
      // reason to keep the file: upload without the conflict check, and say so once.
      if ((error as { retryable?: boolean }).retryable !== false) throw error;
      if (!this.warnedNoStat)
        log.warn("cannot check names before upload; uploading without the conflict check", {
          error: error instanceof Error ? error.message : String(error),
        });
      this.warnedNoStat = true;
      existing = undefined;
    }
    if (existing && existing.size !== size) {
      counters.add("warc.upload.conflicts");
      throw Object.assign(
        new Error(
          `${store.location}${name} already holds ${existing.size} bytes of another file; the local ${size} bytes are kept, not written over it`,
        ),
        { retryable: false },
      );
    }
    if (existing) log.info("uploading again a file the store already has (an upload interrupted after it completed)", { file: name });
    await store.upload(path, name, signal);
    await spool.remove(name);
  }

  private setPending(entries: readonly { size: number }[]): void {
    this.pending = { files: entries.length, bytes: entries.reduce((n, e) => n + e.size, 0) };
  }

  /** Waits `ms`, or less when kicked or stopped. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }
}
