/**
 * DNS cache: resolves host names for the fetcher's connector and remembers the answers, so a crawl
 * that fetches thousands of pages from one host asks the resolver once per TTL instead of once per
 * connection. Failures are remembered too, for a shorter time, so a dead name linked from many pages
 * does not hammer the resolver. Concurrent lookups of one name share a single resolver call. The
 * resolver is injectable: tests map names to loopback without touching the system resolver.
 * `node:dns` `lookup` (getaddrinfo) is the default because it honours /etc/hosts and search domains
 * the way every other program on the machine does; it reports no TTL, hence the fixed cache TTL.
 */
import { lookup as systemLookup } from "node:dns/promises";
import { DnsLookupError } from "./errors.ts";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses; rejects when the name does not resolve. */
export type LookupFn = (host: string) => Promise<ResolvedAddress[]>;

export interface DnsCacheOptions {
  lookup?: LookupFn;
  /** How long an answer is reused. Default 5 minutes. */
  ttlMs?: number;
  /** How long a failed lookup is remembered. Default 30 seconds. */
  negativeTtlMs?: number;
  /** Entries kept at most; the oldest are dropped first. Default 10,000. */
  maxEntries?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

type Entry =
  | { expiresAt: number; addresses: ResolvedAddress[]; error?: undefined }
  | { expiresAt: number; addresses?: undefined; error: DnsLookupError };

export const defaultLookup: LookupFn = async (host) => {
  const answers = await systemLookup(host, { all: true });
  return answers.map(({ address, family }) => ({ address, family }));
};

export class DnsCache {
  readonly #lookup: LookupFn;
  readonly #ttlMs: number;
  readonly #negativeTtlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<ResolvedAddress[]>>();

  constructor(options: DnsCacheOptions = {}) {
    this.#lookup = options.lookup ?? defaultLookup;
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 30_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The addresses of `host`, from the cache when fresh. Rejects with {@link DnsLookupError} when the
   * name does not resolve (now or within the negative TTL) or when `signal` aborts first; an abort
   * only stops this caller waiting, the shared lookup runs on for the others.
   */
  resolve(host: string, signal?: AbortSignal): Promise<ResolvedAddress[]> {
    const key = host.toLowerCase();
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > this.#now()) {
      return entry.error ? Promise.reject(entry.error) : Promise.resolve(entry.addresses);
    }
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#lookupAndStore(key);
      this.#inFlight.set(key, pending);
    }
    return signal ? raceAbort(pending, signal, host) : pending;
  }

  /** Forgets every answer. The cache stays usable; it owns no sockets or timers. */
  close(): void {
    this.#entries.clear();
    this.#inFlight.clear();
  }

  async #lookupAndStore(key: string): Promise<ResolvedAddress[]> {
    try {
      const addresses = await this.#lookup(key);
      if (addresses.length === 0) throw new Error("the resolver returned no addresses");
      this.#store(key, { expiresAt: this.#now() + this.#ttlMs, addresses });
      return addresses;
    } catch (cause) {
      const error = cause instanceof DnsLookupError ? cause : new DnsLookupError(key, cause);
      this.#store(key, { expiresAt: this.#now() + this.#negativeTtlMs, error });
      throw error;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  #store(key: string, entry: Entry): void {
    this.#entries.delete(key); // re-insert so Map order is age order
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

function raceAbort<T>(pending: Promise<T>, signal: AbortSignal, host: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new DnsLookupError(host, signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DnsLookupError(host, signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
