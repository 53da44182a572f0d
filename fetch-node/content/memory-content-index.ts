/**
 * An in-memory ContentIndex: a Map of fingerprints and a SimHash block index. Used by tests and as the
 * embedded crawler's index (which persists it through the `entries` it reloads on start).
 */
import { SimHashIndex } from "../../core/content/index.ts";
import type { ContentIndex } from "./content-index.ts";

export class MemoryContentIndex implements ContentIndex {
  private readonly exact = new Map<string, string>();
  private readonly near = new SimHashIndex();
  /** First answer of each URL's near claim, so a repeated claim answers the same (the contract). */
  private readonly nearAnswers = new Map<string, string | undefined>();

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    return this.claimExactSync(fingerprint, url);
  }

  claimExactSync(fingerprint: string, url: string): string | undefined {
    const owner = this.exact.get(fingerprint);
    if (owner === undefined) {
      this.exact.set(fingerprint, url);
      return undefined;
    }
    return owner === url ? undefined : owner;
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    return this.claimNearSync(simhash, url);
  }

  claimNearSync(simhash: bigint, url: string): string | undefined {
    if (this.nearAnswers.has(url)) return this.nearAnswers.get(url);
    const match = this.near.findNear(simhash, 3);
    this.near.add(simhash, url);
    const answer = match && match.id !== url ? match.id : undefined;
    this.nearAnswers.set(url, answer);
    return answer;
  }

  get size(): number {
    return this.exact.size;
  }

  async close(): Promise<void> {}
}
