/**
 * The simulation's clock: a binary min-heap of (time, event) pairs in typed arrays, so millions of pending
 * events cost 12 bytes each and no objects. Ties come out in no particular order (the simulation's events
 * at one instant are independent hosts). Capacity is fixed: each host has at most one pending event.
 */
export class EventHeap {
  private readonly times: Float64Array;
  private readonly events: Int32Array;
  private n = 0;

  constructor(capacity: number) {
    this.times = new Float64Array(capacity);
    this.events = new Int32Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Time of the earliest event; Infinity when empty. */
  peekTime(): number {
    return this.n > 0 ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  push(time: number, event: number): void {
    if (this.n >= this.times.length) throw new RangeError("EventHeap is full");
    let i = this.n++;
    const { times, events } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      events[i] = events[parent]!;
      i = parent;
    }
    times[i] = time;
    events[i] = event;
  }

  /** Removes the earliest event and returns it (its time was `peekTime()`). */
  pop(): number {
    const { times, events } = this;
    const top = events[0]!;
    const last = --this.n;
    if (last > 0) {
      const t = times[last]!;
      const e = events[last]!;
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= last) break;
        if (child + 1 < last && times[child + 1]! < times[child]!) child++;
        if (times[child]! >= t) break;
        times[i] = times[child]!;
        events[i] = events[child]!;
        i = child;
      }
      times[i] = t;
      events[i] = e;
    }
    return top;
  }
}
