/**
 * The fetch node's content index as what it is, a cache: the region's Redis is asked whether a page's
 * content was seen before (exact fingerprint, SimHash), and when it cannot answer (restarting, failing
 * over, unreachable) the page is taken as new content: stored in the WARC and its links parsed, exactly as
 * if the index had never seen it. The alternative, failing the task, would fetch the page again later: a
 * second request to the host for what is already in hand. The cost is a duplicate stored now and then,
 * counted as `fetcher.content-index.unanswered`. An outage is logged once when it starts (with the error,
 * which says what failed and why) and once when the index answers again.
 */
import { errorFields } from "../core/errors/index.ts";
import type { ContentIndex, Log } from "../core/ports/index.ts";
import type { Counters } from "../core/stats/index.ts";

export interface AdvisoryContentIndexOptions {
  counters: Counters;
  log: Log;
}

export class AdvisoryContentIndex implements ContentIndex {
  /** Claims left unanswered since the index last answered; 0 while it answers. */
  private unanswered = 0;

  constructor(
    private readonly inner: ContentIndex,
    private readonly opts: AdvisoryContentIndexOptions,
  ) {}

  claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    return this.ask(() => this.inner.claimExact(fingerprint, url));
  }

  claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    return this.ask(() => this.inner.claimNear(simhash, url));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async ask(claim: () => Promise<string | undefined>): Promise<string | undefined> {
    try {
      const answer = await claim();
      if (this.unanswered > 0) {
        this.opts.log.info("the content index answers again", { unanswered: this.unanswered });
        this.unanswered = 0;
      }
      return answer;
    } catch (error) {
      if (this.unanswered === 0) {
        this.opts.log.warn("the content index cannot answer; pages are stored as new content until it can", errorFields(error));
      }
      this.unanswered++;
      this.opts.counters.add("fetcher.content-index.unanswered");
      return undefined;
    }
  }
}
