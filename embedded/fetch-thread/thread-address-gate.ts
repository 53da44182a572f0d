/**
 * The cap per server address as a fetch thread sees it: `crawl` has one AddressGate, in its main thread, so
 * the cap holds across all fetch threads (a server's hosts are spread over threads by host). Each enter is a
 * question to the main thread, each arrival and each leave a note to it, those of the last BATCH_MS sent in
 * one message: a message has a fixed cost on both sides, and one per ask, arrival and leave (four a page)
 * cost about 0.2 ms of CPU per page in the crawl benchmark. The wait only ever delays a pass or a
 * release, so the cap and the gap hold as before (a pass comes at most BATCH_MS later).
 */
import type { AddressGate, AddressPass } from "../../core/ports/index.ts";
import type { GateAsk } from "./protocol.ts";

/** How long asks and notes gather before they go to the main thread in one message. */
const BATCH_MS = 1;

export class ThreadAddressGate implements AddressGate {
  #ids = 0;
  readonly #waiting = new Map<number, { resolve: (pass: AddressPass | undefined) => void; abandoned: boolean }>();
  #asks: GateAsk[] = [];
  #arrivals: number[] = [];
  #leaves: number[] = [];
  #flushQueued = false;

  /** `send` posts one message to the main thread. */
  constructor(private readonly send: (asks: GateAsk[], arrivals: number[], leaves: number[]) => void) {}

  enter(key: string, waitMs: number, signal?: AbortSignal): Promise<AddressPass | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#ids++;
    return new Promise((resolve, reject) => {
      const entry = { resolve, abandoned: false };
      const onAbort = (): void => {
        // The main thread may still grant it: answered() gives such a pass straight back.
        entry.abandoned = true;
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      entry.resolve = (pass) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(pass);
      };
      this.#waiting.set(id, entry);
      this.#asks.push({ id, key, waitMs });
      this.#flushSoon();
    });
  }

  /** The main thread's answers: a pass (with the wait) or none. */
  answered(answers: ReadonlyArray<{ id: number; waitedMs?: number }>): void {
    for (const { id, waitedMs } of answers) {
      const entry = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (entry === undefined) continue;
      if (waitedMs === undefined) {
        entry.resolve(undefined);
        continue;
      }
      if (entry.abandoned) {
        this.#leave(id);
        continue;
      }
      let arrived = false;
      let left = false;
      entry.resolve({
        waitedMs,
        arrived: () => {
          if (arrived || left) return;
          arrived = true;
          // Told at the end of this turn (a microtask away), with the turn's other words: the main thread's
          // gap runs from when it hears of it, so it only ever runs later than the arrival, never sooner.
          this.#arrivals.push(id);
          this.#flushSoon();
        },
        leave: () => {
          if (left) return;
          left = true;
          this.#leave(id);
        },
      });
    }
  }

  close(): void {
    for (const entry of this.#waiting.values()) entry.resolve(undefined);
    this.#waiting.clear();
  }

  #leave(id: number): void {
    this.#leaves.push(id);
    this.#flushSoon();
  }

  #flushSoon(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setTimeout(() => {
      this.#flushQueued = false;
      const asks = this.#asks;
      const arrivals = this.#arrivals;
      const leaves = this.#leaves;
      this.#asks = [];
      this.#arrivals = [];
      this.#leaves = [];
      if (asks.length > 0 || arrivals.length > 0 || leaves.length > 0) this.send(asks, arrivals, leaves);
    }, BATCH_MS);
  }
}
