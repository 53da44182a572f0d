/**
 * The hosts that are waiting: not ready yet, each until its time (the end of its politeness gap, the next
 * UTC day for a host at its daily cap, the expiry of an unreadable robots.txt). A binary min-heap keyed by
 * that time, with a host-to-position map so that changing or removing one host costs O(log n) instead of a
 * scan. The frontier pops a host once its time has come (it moves to the ready queues) and pushes it back
 * with its new time after its fetch (or leaves it out while its queue is empty). Hosts with equal times
 * come out in the order they were pushed, so no host is starved by ties. It is an in-memory index, rebuilt
 * from the persisted host states at start-up, so unlike those states it is not plain data.
 */

/** One waiting host and the time it may be fetched again. */
export interface WaitingHost {
  readonly host: string;
  /** Epoch milliseconds. */
  readonly at: number;
}

interface Slot {
  host: string;
  at: number;
  /** Push order, breaking ties between equal times first-in first-out. */
  seq: number;
}

export class WaitingHostHeap {
  readonly #slots: Slot[] = [];
  readonly #index = new Map<string, number>();
  #seq = 0;

  get size(): number {
    return this.#slots.length;
  }

  has(host: string): boolean {
    return this.#index.has(host);
  }

  /** The host's time, or undefined when it is not in the heap. */
  get(host: string): number | undefined {
    const i = this.#index.get(host);
    return i === undefined ? undefined : this.#slots[i]?.at;
  }

  /** Adds a host, or moves it to `at` when it is already in (an upsert, so callers need not check). */
  push(host: string, at: number): void {
    if (this.#index.has(host)) {
      this.update(host, at);
      return;
    }
    this.#slots.push({ host, at, seq: this.#seq++ });
    this.#index.set(host, this.#slots.length - 1);
    this.#up(this.#slots.length - 1);
  }

  /** Moves a host already in the heap to `at`; returns false, changing nothing, when it is not in. */
  update(host: string, at: number): boolean {
    const i = this.#index.get(host);
    if (i === undefined) return false;
    const slot = this.#slots[i] as Slot;
    if (slot.at === at) return true;
    slot.at = at;
    slot.seq = this.#seq++;
    this.#up(i);
    this.#down(this.#index.get(host) as number);
    return true;
  }

  /** Takes a host out; returns false when it was not in. */
  remove(host: string): boolean {
    const i = this.#index.get(host);
    if (i === undefined) return false;
    this.#removeAt(i);
    return true;
  }

  /** The host with the earliest time, without removing it. */
  peek(): WaitingHost | undefined {
    const top = this.#slots[0];
    return top ? { host: top.host, at: top.at } : undefined;
  }

  /** Removes and returns the host with the earliest time. */
  pop(): WaitingHost | undefined {
    const top = this.peek();
    if (top) this.#removeAt(0);
    return top;
  }

  /** Removes and returns the earliest host if its time has come (`at <= now`): it is ready now. Else undefined. */
  popReady(now: number): WaitingHost | undefined {
    const top = this.#slots[0];
    return top && top.at <= now ? this.pop() : undefined;
  }

  clear(): void {
    this.#slots.length = 0;
    this.#index.clear();
  }

  #removeAt(i: number): void {
    const last = this.#slots.pop() as Slot;
    this.#index.delete(last.host);
    if (i === this.#slots.length) return; // the removed slot was the last one
    this.#index.delete((this.#slots[i] as Slot).host);
    this.#slots[i] = last;
    this.#index.set(last.host, i);
    this.#up(i);
    this.#down(this.#index.get(last.host) as number);
  }

  #less(a: Slot, b: Slot): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#slots[i] as Slot;
    const b = this.#slots[j] as Slot;
    this.#slots[i] = b;
    this.#slots[j] = a;
    this.#index.set(b.host, i);
    this.#index.set(a.host, j);
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#slots[i] as Slot, this.#slots[parent] as Slot)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#slots.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && this.#less(this.#slots[left] as Slot, this.#slots[least] as Slot)) least = left;
      if (right < n && this.#less(this.#slots[right] as Slot, this.#slots[least] as Slot)) least = right;
      if (least === i) return;
      this.#swap(i, least);
      i = least;
    }
  }
}
