/**
 * The hosts that are waiting: not ready yet, each until its time (the end of its politeness gap, the next
 * UTC day for a host at its daily cap, the expiry of an unreadable robots.txt). A binary min-heap keyed by
 * that time, with a host-to-slot map (each slot keeps its own position, so a sift writes no map entry), so
 * that changing or removing one host costs O(log n) instead of a scan. The frontier pops a host once its
 * time has come (it moves to the ready queues) and pushes it back with its new time after its fetch (or
 * leaves it out while its queue is empty). Hosts with equal times come out in the order they were pushed,
 * so no host is starved by ties. It is an in-memory index, rebuilt from the persisted host states at
 * start-up, so unlike those states it is not plain data.
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
  /** The slot's position in the heap array, kept by every move (so the index map is written only on push and removal). */
  i: number;
}

export class WaitingHostHeap {
  readonly #slots: Slot[] = [];
  /** Each host's slot; a slot knows its own position, so sifting moves no map entries. */
  readonly #index = new Map<string, Slot>();
  #seq = 0;

  get size(): number {
    return this.#slots.length;
  }

  has(host: string): boolean {
    return this.#index.has(host);
  }

  /** The host's time, or undefined when it is not in the heap. */
  get(host: string): number | undefined {
    return this.#index.get(host)?.at;
  }

  /** Adds a host, or moves it to `at` when it is already in (an upsert, so callers need not check). */
  push(host: string, at: number): void {
    const slot = this.#index.get(host);
    if (slot) {
      this.#move(slot, at);
      return;
    }
    const added: Slot = { host, at, seq: this.#seq++, i: this.#slots.length };
    this.#slots.push(added);
    this.#index.set(host, added);
    this.#up(added);
  }

  /** Moves a host already in the heap to `at`; returns false, changing nothing, when it is not in. */
  update(host: string, at: number): boolean {
    const slot = this.#index.get(host);
    if (slot === undefined) return false;
    this.#move(slot, at);
    return true;
  }

  /** Takes a host out; returns false when it was not in. */
  remove(host: string): boolean {
    const slot = this.#index.get(host);
    if (slot === undefined) return false;
    this.#removeAt(slot.i);
    return true;
  }

  /** The host with the earliest time, without removing it. */
  peek(): WaitingHost | undefined {
    const top = this.#slots[0];
    return top ? { host: top.host, at: top.at } : undefined;
  }

  /** Removes and returns the host with the earliest time. */
  pop(): WaitingHost | undefined {
    const top = this.#slots[0];
    if (!top) return undefined;
    this.#removeAt(0);
    return { host: top.host, at: top.at };
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

  #move(slot: Slot, at: number): void {
    if (slot.at === at) return;
    slot.at = at;
    slot.seq = this.#seq++;
    this.#up(slot);
    this.#down(slot);
  }

  #removeAt(i: number): void {
    const slots = this.#slots;
    const removed = slots[i] as Slot;
    const last = slots.pop() as Slot;
    this.#index.delete(removed.host);
    if (last === removed) return; // the removed slot was the last one
    slots[i] = last;
    last.i = i;
    this.#up(last);
    this.#down(last);
  }

  /** Moves `slot` towards the root while it is earlier than its parent: parents shift down into the hole. */
  #up(slot: Slot): void {
    const slots = this.#slots;
    let i = slot.i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = slots[p] as Slot;
      if (!less(slot, parent)) break;
      slots[i] = parent;
      parent.i = i;
      i = p;
    }
    slots[i] = slot;
    slot.i = i;
  }

  /** Moves `slot` towards the leaves while a child is earlier: the earlier child shifts up into the hole. */
  #down(slot: Slot): void {
    const slots = this.#slots;
    const n = slots.length;
    let i = slot.i;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      let c = left;
      let child = slots[left] as Slot;
      if (left + 1 < n) {
        const right = slots[left + 1] as Slot;
        if (less(right, child)) {
          c = left + 1;
          child = right;
        }
      }
      if (!less(child, slot)) break;
      slots[i] = child;
      child.i = i;
      i = c;
    }
    slots[i] = slot;
    slot.i = i;
  }
}

function less(a: Slot, b: Slot): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
