/**
 * An AddressGate (core/ports) that tells an AddressBoard (core/politeness) of every pass its inner gate gives
 * and every request given back for want of one, and counts the passes (`<prefix>.address.passes`). Wrapped
 * around the gate where the passes are taken: `crawl`'s main thread (its fetch threads ask it by message),
 * each fetch node (its Redis gate), so the per-address view is one implementation in both modes.
 */
import type { AddressBoard } from "../../core/politeness/index.ts";
import type { AddressGate, AddressGateState, AddressPass } from "../../core/ports/index.ts";
import type { Counters } from "../../core/stats/index.ts";

export class CountingAddressGate implements AddressGate {
  #closed = false;

  constructor(
    private readonly inner: AddressGate,
    private readonly board: AddressBoard,
    private readonly counters?: { counters: Counters; prefix: string },
  ) {}

  async enter(key: string, waitMs: number, signal?: AbortSignal): Promise<AddressPass | undefined> {
    const pass = await this.inner.enter(key, waitMs, signal);
    if (pass) {
      this.board.passed(key, pass.waitedMs);
      this.counters?.counters.add(`${this.counters.prefix}.address.passes`);
    } else if (!this.#closed) this.board.gaveUp(key, waitMs); // a closing gate turns waiters away: not the server's doing
    return pass;
  }

  inspect(key: string): Promise<AddressGateState | undefined> {
    return this.inner.inspect ? this.inner.inspect(key) : Promise.resolve(undefined);
  }

  close(): void | Promise<void> {
    this.#closed = true;
    return this.inner.close();
  }
}
