/**
 * A set of 53-bit keys (core/hash key53) in one Float64Array, open addressing with linear probing, for the
 * sets that hold a key per host or per URL at a million hosts (the scope's roots, the known home pages).
 * A JS Set of numbers costs 40-50 bytes a key in JSC (its hash table and ordered entry list, each grown by
 * doubling); here a key is 8 bytes at a load between 3/8 and 3/4, so 11-21 bytes a key, and nothing in the
 * set is an object the collector walks. While the table doubles, the old and the new array are both held
 * (24 bytes a key for a moment).
 *
 * Keys are whole numbers from 0 to 2^53 - 1; their low 32 bits are hash bits already (key53 mixes them),
 * so they index the table as they are. -1 marks a free slot. No removal: the users only add, and clear.
 */

const FREE = -1;
const MIN_CAPACITY = 16;
/** Doubles past this load: probes stay short (about 2.5 slots for a miss at 3/4 with linear probing). */
const MAX_LOAD = 0.75;

export class Key53Set {
  private slots: Float64Array;
  private mask: number;
  private count = 0;

  constructor(capacity = MIN_CAPACITY) {
    this.slots = freeSlots(powerOfTwoAtLeast(Math.max(MIN_CAPACITY, capacity)));
    this.mask = this.slots.length - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds (its array), for the memory figures. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  has(key: number): boolean {
    const slots = this.slots;
    for (let i = (key >>> 0) & this.mask; ; i = (i + 1) & this.mask) {
      const slot = slots[i]!;
      if (slot === key) return true;
      if (slot === FREE) return false;
    }
  }

  /** Adds `key`; true when it was not in the set. A key that is not a whole number in [0, 2^53) throws a RangeError. */
  add(key: number): boolean {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`Key53Set: ${key} is not a whole number from 0 to 2^53 - 1`);
    if (!this.place(this.slots, this.mask, key)) return false;
    this.count++;
    if (this.count > this.slots.length * MAX_LOAD) this.grow();
    return true;
  }

  /** Empties the set and gives its table back (the next adds start small again). */
  clear(): void {
    this.slots = freeSlots(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
    this.count = 0;
  }

  private place(slots: Float64Array, mask: number, key: number): boolean {
    for (let i = (key >>> 0) & mask; ; i = (i + 1) & mask) {
      const slot = slots[i]!;
      if (slot === key) return false;
      if (slot === FREE) {
        slots[i] = key;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    const slots = freeSlots(old.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < old.length; i++) {
      const key = old[i]!;
      if (key !== FREE) this.place(slots, mask, key);
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function freeSlots(capacity: number): Float64Array {
  return new Float64Array(capacity).fill(FREE);
}

function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
