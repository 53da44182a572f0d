/**
 * Which URL first had a content: exact fingerprints in a map, SimHashes in a block index (near duplicates
 * within 3 bits). Synchronous and in memory; the in-process ContentIndex adapters (memory, SQLite) answer
 * from it, so both keep the port's contract the same way: a claim repeated for the same URL answers the
 * same as the first time.
 */
import { SimHashIndex } from "./simhash-index.ts";

/** Hamming distance within which two pages are near duplicates. */
export const NEAR_DUPLICATE_BITS = 3;

export class ContentClaims {
  private readonly exact = new Map<string, string>();
  private readonly near = new SimHashIndex();
  /** First answer of each URL's near claim, so a repeated claim answers the same. */
  private readonly nearAnswers = new Map<string, string | undefined>();

  /** Records `url` as the owner of `fingerprint` when it has none; returns the owner when that is another URL. */
  claimExact(fingerprint: string, url: string): string | undefined {
    const owner = this.exact.get(fingerprint);
    if (owner === undefined) {
      this.exact.set(fingerprint, url);
      return undefined;
    }
    return owner === url ? undefined : owner;
  }

  /** Returns another URL whose SimHash is within NEAR_DUPLICATE_BITS of `simhash`, if any, then records this one. */
  claimNear(simhash: bigint, url: string): string | undefined {
    if (this.nearAnswers.has(url)) return this.nearAnswers.get(url);
    const match = this.near.findNear(simhash, NEAR_DUPLICATE_BITS);
    this.near.add(simhash, url);
    const answer = match && match.id !== url ? match.id : undefined;
    this.nearAnswers.set(url, answer);
    return answer;
  }

  /** Whether `url` made a near claim already (its answer is kept, and a claim again changes nothing). */
  knowsNear(url: string): boolean {
    return this.nearAnswers.has(url);
  }

  /** Distinct exact fingerprints recorded. */
  get size(): number {
    return this.exact.size;
  }
}
