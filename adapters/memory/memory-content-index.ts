/**
 * An in-memory ContentIndex over core's ContentClaims: tests, and a fetch node without Redis (duplicates
 * are then found per node, not per region). Nothing survives a restart.
 */
import { ContentClaims } from "../../core/content/index.ts";
import type { ContentIndex } from "../../core/ports/index.ts";

export class MemoryContentIndex implements ContentIndex {
  private readonly claims = new ContentClaims();

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    return this.claims.claimExact(fingerprint, url);
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    return this.claims.claimNear(simhash, url);
  }

  get size(): number {
    return this.claims.size;
  }

  async close(): Promise<void> {}
}
