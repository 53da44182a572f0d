/**
 * In-memory AddressGate (core/ports/address-gate.ts): `crawl`'s one gate in its main thread (the fetch
 * threads ask it by message), and a fetch node without Redis, where it holds within that process only.
 *
 * Cost: one small record per address with a request in flight, a waiter, or a pass given within the last
 * gap; an address that goes quiet is forgotten once its gap has passed (swept a few records per call, from
 * the oldest), so memory follows the addresses busy now, not every address ever seen. One timer per
 * address that has waiters and must wait out its gap.
 */
import type { AddressGate, AddressGateLimits, AddressGateState, AddressPass } from "../../core/ports/index.ts";

export interface MemoryAddressGateOptions extends AddressGateLimits {
  /** Clock, injectable for tests. Default `performance.now` (monotonic). */
  now?: () => number;
  /** Wall clock for `inspect`'s epoch times. Default `Date.now`. */
  wallNow?: () => number;
}

interface Waiter {
  grant: () => void;
  giveUp: () => void;
}

interface AddressRecord {
  inFlight: number;
  /** Passes given whose request is not known to have reached the server yet: no other is given meanwhile. */
  unconfirmed: number;
  /** When the last request was known to have reached the server (the gate's clock); -Infinity: never. */
  lastAt: number;
  waiters: Waiter[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Quiet records looked at per call: the sweep's cost spread over the calls. */
const SWEEP_STEP = 2;

export class MemoryAddressGate implements AddressGate {
  readonly #limits: AddressGateLimits;
  readonly #now: () => number;
  readonly #wallNow: () => number;
  /** Key -> record; re-inserted on each pass, so Map order is the order of last passes (oldest first). */
  readonly #records = new Map<string, AddressRecord>();
  #closed = false;

  constructor(options: MemoryAddressGateOptions) {
    if (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 1) {
      throw new RangeError(`MemoryAddressGate: maxInFlight must be a positive integer, got ${options.maxInFlight}`);
    }
    if (!(Number.isFinite(options.gapMs) && options.gapMs >= 0)) {
      throw new RangeError(`MemoryAddressGate: gapMs must be a non-negative number, got ${options.gapMs}`);
    }
    this.#limits = { maxInFlight: options.maxInFlight, gapMs: options.gapMs };
    this.#now = options.now ?? (() => performance.now());
    this.#wallNow = options.wallNow ?? Date.now;
  }

  /** Addresses with a record now (busy, waited for, or within their gap): for tests and gauges. */
  get size(): number {
    return this.#records.size;
  }

  enter(key: string, waitMs: number, signal?: AbortSignal): Promise<AddressPass | undefined> {
    this.#sweep();
    if (this.#closed) return Promise.resolve(undefined);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const record = this.#record(key);
    const askedAt = this.#now();
    if (record.waiters.length === 0 && this.#mayPass(record, askedAt)) return Promise.resolve(this.#pass(key, record, askedAt));
    return new Promise<AddressPass | undefined>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(giveUpTimer);
        signal?.removeEventListener("abort", onAbort);
        const index = record.waiters.indexOf(waiter);
        if (index !== -1) record.waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          done();
          resolve(this.#pass(key, record, askedAt));
        },
        giveUp: () => {
          done();
          resolve(undefined);
          this.#serve(key, record); // the one behind may be free to go
        },
      };
      const onAbort = (): void => {
        done();
        reject(signal?.reason);
        this.#serve(key, record);
      };
      const giveUpTimer = setTimeout(waiter.giveUp, Math.max(0, waitMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      record.waiters.push(waiter);
      this.#serve(key, record);
    });
  }

  /** The key's passes held and when its gap next allows one (read only: no record is made). */
  inspect(key: string): Promise<AddressGateState | undefined> {
    const record = this.#records.get(key);
    if (!record) return Promise.resolve({ holders: 0, nextAllowedAt: 0 });
    const gapLeft = record.lastAt + this.#limits.gapMs - this.#now();
    return Promise.resolve({ holders: record.inFlight, nextAllowedAt: gapLeft > 0 ? Math.ceil(this.#wallNow() + gapLeft) : 0 });
  }

  close(): void {
    this.#closed = true;
    for (const record of this.#records.values()) {
      clearTimeout(record.timer);
      for (const waiter of [...record.waiters]) waiter.giveUp();
    }
  }

  #record(key: string): AddressRecord {
    let record = this.#records.get(key);
    if (record === undefined) {
      record = { inFlight: 0, unconfirmed: 0, lastAt: Number.NEGATIVE_INFINITY, waiters: [], timer: undefined };
      this.#records.set(key, record);
    }
    return record;
  }

  #mayPass(record: AddressRecord, now: number): boolean {
    return record.inFlight < this.#limits.maxInFlight && record.unconfirmed === 0 && now - record.lastAt >= this.#limits.gapMs;
  }

  #pass(key: string, record: AddressRecord, askedAt: number): AddressPass {
    const now = this.#now();
    record.inFlight++;
    record.unconfirmed++;
    this.#records.delete(key);
    this.#records.set(key, record);
    let arrived = false;
    let left = false;
    const markArrived = (): void => {
      if (arrived) return;
      arrived = true;
      record.unconfirmed--;
      record.lastAt = this.#now();
    };
    return {
      waitedMs: Math.max(0, now - askedAt),
      arrived: () => {
        if (arrived || left) return;
        markArrived();
        this.#serve(key, record);
      },
      leave: () => {
        if (left) return;
        left = true;
        markArrived();
        record.inFlight--;
        this.#serve(key, record);
      },
    };
  }

  /** Lets the first waiter of `key` through if it may go now, else sets a timer for when its gap ends. */
  #serve(key: string, record: AddressRecord): void {
    const first = record.waiters[0];
    if (first === undefined || this.#closed) return;
    const now = this.#now();
    if (record.inFlight >= this.#limits.maxInFlight || record.unconfirmed > 0) return; // a leave() or arrived() serves it
    const gapLeft = record.lastAt + this.#limits.gapMs - now;
    if (gapLeft <= 0) {
      first.grant();
      this.#serve(key, record);
      return;
    }
    if (record.timer !== undefined) return;
    record.timer = setTimeout(() => {
      record.timer = undefined;
      this.#serve(key, record);
    }, Math.ceil(gapLeft));
  }

  /**
   * Looks at SWEEP_STEP of the oldest records: a quiet one (nothing in flight, no waiter, gap over) is
   * forgotten, a busy one goes to the back of the line, so one long request never stops the sweep.
   */
  #sweep(): void {
    const now = this.#now();
    for (let looked = 0; looked < SWEEP_STEP; looked++) {
      const oldest = this.#records.entries().next();
      if (oldest.done) return;
      const [key, record] = oldest.value;
      this.#records.delete(key);
      if (record.inFlight > 0 || record.waiters.length > 0 || now - record.lastAt < this.#limits.gapMs) this.#records.set(key, record);
    }
  }
}
