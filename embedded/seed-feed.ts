/**
 * `crawl`'s seeds, from the arguments and from `--seeds FILE`, handed to the frontier in batches while the
 * crawl runs: a list of a million sites is never held whole (the file is read as a stream, kit/fs
 * readLines), and pages come from the first batch on instead of after the last one is admitted. A line
 * that is no URL we can crawl is reported with its number and skipped, never fatal; the first
 * MAX_REPORTED are reported one by one, the rest counted. Long files report progress every few seconds.
 */
import type { DiscoveredUrl } from "../core/model/index.ts";
import { AddressPolicy, describeRefusal } from "../core/net/index.ts";
import type { PolicyConfig } from "../core/config/index.ts";
import { hostKeyOf, normalizeUrl, originOf } from "../core/url/index.ts";
import { fileSize, readLines } from "../kit/fs/index.ts";
import type { Log } from "../core/ports/index.ts";

const BATCH = 10_000;
const MAX_REPORTED = 100;
const PROGRESS_EVERY_MS = 5_000;

export interface SeedFeedOptions {
  /** Seed URLs given as arguments (a few: held as they are). */
  readonly urls: readonly string[];
  readonly file?: string;
  /** A file of feed URLs (RSS, Atom), one per line: each is read as a feed (a sitemap reference marked feed), not fetched as a page. */
  readonly feedsFile?: string;
  readonly policy: PolicyConfig;
  readonly log: Log;
  /** Admits one batch; resolves with how many were new. */
  readonly add: (batch: DiscoveredUrl[]) => Promise<number>;
  /** Called after each batch is admitted (the crawl loop looks for new work). */
  readonly onBatch?: () => void;
  readonly now?: () => number;
  readonly batchSize?: number;
}

export interface SeedFeedTotals {
  /** URLs handed to the frontier (it may still refuse some, e.g. by the address policy). */
  offered: number;
  /** New to the frontier. */
  added: number;
  /** Lines or arguments that were no crawlable URL. */
  rejected: number;
  /** Offered seeds the address policy refuses (the frontier refuses and counts them). */
  refused: number;
  /** Lines read from the file. */
  lines: number;
}

export class SeedFeed {
  readonly totals: SeedFeedTotals = { offered: 0, added: 0, rejected: 0, refused: 0, lines: 0 };
  private batch: DiscoveredUrl[] = [];
  private readonly addresses: AddressPolicy;
  private readonly batchSize: number;
  private readonly now: () => number;
  private lastProgress: number;
  private reported = 0;
  private finished = false;

  constructor(private readonly opts: SeedFeedOptions) {
    this.addresses = AddressPolicy.of(opts.policy);
    this.batchSize = opts.batchSize ?? BATCH;
    this.now = opts.now ?? Date.now;
    this.lastProgress = this.now();
    this.firstBatch = new Promise((resolve) => (this.firstBatchDone = resolve));
  }

  /** True once every seed was read and admitted (or reading failed). */
  get done(): boolean {
    return this.finished;
  }

  /** Resolves once the first batch is admitted or the feed ended, whichever comes first: time to start crawling. */
  readonly firstBatch: Promise<void>;
  private firstBatchDone: () => void = () => {};

  /** Reads and admits every seed; rejects (naming the file) when the file cannot be read. */
  async run(): Promise<SeedFeedTotals> {
    try {
      for (const url of this.opts.urls) await this.offer(url, "argument");
      if (this.opts.file) await this.readFile(this.opts.file, false);
      if (this.opts.feedsFile) await this.readFile(this.opts.feedsFile, true);
      await this.flush();
    } finally {
      this.finished = true;
      this.firstBatchDone();
    }
    if (this.opts.file && this.totals.lines >= this.batchSize) {
      this.opts.log.info(
        `seeded ${this.totals.lines.toLocaleString("en")} lines of ${this.opts.file}: ${this.totals.added.toLocaleString("en")} new, ${this.totals.rejected.toLocaleString("en")} rejected`,
        { ...this.totals },
      );
    }
    return this.totals;
  }

  private async readFile(file: string, feeds: boolean): Promise<void> {
    const size = fileSize(file);
    for await (const line of readLines(file)) {
      this.totals.lines = line.lineNo;
      if (line.tooLong) {
        this.reject(`${file}:${line.lineNo}`, "line too long to be a URL (over 65,536 characters)", "too-long");
        continue;
      }
      const text = line.text.trim();
      if (text.length === 0 || text.startsWith("#")) continue;
      await this.offer(text, `${file}:${line.lineNo}`, feeds);
      if (this.now() - this.lastProgress >= PROGRESS_EVERY_MS) {
        this.lastProgress = this.now();
        const share = size ? ` (${Math.floor((100 * line.bytesRead) / size)} % of the file)` : "";
        this.opts.log.info(
          `seeded ${line.lineNo.toLocaleString("en")} lines of ${file}${share}: ${this.totals.added.toLocaleString("en")} new so far`,
          { lines: line.lineNo, bytesRead: line.bytesRead, fileBytes: size, added: this.totals.added },
        );
      }
    }
  }

  private async offer(url: string, where: string, feed = false): Promise<void> {
    const n = normalizeUrl(url);
    if (!n.ok) {
      this.reject(where, `${url}: ${n.reason}`, n.reason);
      return;
    }
    const host = hostKeyOf(n.url);
    // The frontier's admission refuses (and counts) it; say why here, where the operator is looking.
    const refusal = this.addresses.checkHost(host);
    if (refusal) {
      this.totals.refused++;
      this.report(`seed rejected (${where}): ${url}: refused-address: ${refusal.reason}: ${describeRefusal(refusal)}`, {
        reason: "refused-address",
        address: refusal.reason,
        seedFrom: where,
      });
    }
    this.totals.offered++;
    const seed: DiscoveredUrl = { url: n.url, host, depth: 0, redirectHops: 0, isSeed: true };
    // A feed vouches for its own origin's URLs; read again whenever offered again (each run) once --refetch-min has passed.
    if (feed) seed.sitemap = { grants: [`${originOf(n.url)}/`], feed: true };
    this.batch.push(seed);
    if (this.batch.length >= this.batchSize) await this.flush();
  }

  private reject(where: string, why: string, reason: string): void {
    this.totals.rejected++;
    this.report(`seed rejected (${where}): ${why}`, { reason, seedFrom: where });
  }

  private report(message: string, fields: Record<string, unknown>): void {
    this.reported++;
    if (this.reported <= MAX_REPORTED) this.opts.log.warn(message, fields);
    else if (this.reported === MAX_REPORTED + 1)
      this.opts.log.warn(`more seeds rejected: only the first ${MAX_REPORTED} are shown; the total is reported at the end`);
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.totals.added += await this.opts.add(batch);
    this.opts.onBatch?.();
    this.firstBatchDone();
  }
}
