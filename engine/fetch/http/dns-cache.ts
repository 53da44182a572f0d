/**
 * DNS cache: resolves host names for the fetcher's connector and remembers the answers, so a crawl
 * that fetches thousands of pages from one host asks the resolver once per TTL instead of once per
 * connection. Failures are remembered too, for a shorter time, so a dead name linked from many pages
 * does not hammer the resolver. Concurrent lookups of one name share a single resolver call. The
 * resolver is injectable: tests map names to loopback without touching the system resolver.
 * `node:dns` `lookup` (getaddrinfo) is the default because it honours /etc/hosts and search domains
 * the way every other program on the machine does; it reports no TTL, hence the fixed cache TTL.
 *
 * A resolver that is down fails every name alike ("temporary failure", EAI_AGAIN), which must not be
 * booked against the hosts: once RESOLVER_DOWN_STREAK distinct names in a row failed that way with no
 * answer between them, each further such failure is a ResolverDownError (a local failure: the task goes
 * back, the host is not blamed) and is not remembered, so names resolve again the moment the resolver does.
 */
import { lookup as systemLookup } from "node:dns/promises";
import { DnsLookupError, ResolverDownError } from "./errors.ts";

/** Distinct names failing temporarily in a row, with no answer between, that mean our resolver is down. */
export const RESOLVER_DOWN_STREAK = 8;
/** What a resolver that does not answer reports through getaddrinfo (and through c-ares, for resolve*). */
const TEMPORARY = new Set(["EAI_AGAIN", "ETIMEOUT", "ECONNREFUSED", "ESERVFAIL"]);

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

/** The system resolver (getaddrinfo), the default. */
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
  /** Names that failed temporarily since the last answer (bounded: only its size past the streak matters). */
  readonly #failingNames = new Set<string>();

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
      this.#failingNames.clear();
      this.#store(key, { expiresAt: this.#now() + this.#ttlMs, addresses });
      return addresses;
    } catch (cause) {
      if (this.#resolverDown(key, cause)) throw new ResolverDownError(key, this.#failingNames.size, cause);
      const error = cause instanceof DnsLookupError ? cause : new DnsLookupError(key, cause);
      this.#store(key, { expiresAt: this.#now() + this.#negativeTtlMs, error });
      throw error;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** Counts a temporary failure of `key`; true once enough distinct names failed so in a row. */
  #resolverDown(key: string, cause: unknown): boolean {
    const code = (cause as { code?: unknown } | null)?.code;
    if (typeof code !== "string" || !TEMPORARY.has(code)) return false;
    if (this.#failingNames.size <= RESOLVER_DOWN_STREAK) this.#failingNames.add(key);
    return this.#failingNames.size >= RESOLVER_DOWN_STREAK;
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
