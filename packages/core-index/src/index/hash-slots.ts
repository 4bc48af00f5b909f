/**
 * An open-addressing table of item numbers by a 32-bit hash, for lists kept as typed arrays (a build memo's records,
 * the last made-answers file's pages): a power of two of slots, at least twice the items, linear probing; 4 bytes a
 * slot. It keeps no hashes: a look-up offers every item in the probe run and the caller tells its own.
 */
export class HashSlots {
  private readonly slots: Uint32Array;

  /** `count` items, item `i` of hash `hashOf(i)`. */
  constructor(count: number, hashOf: (i: number) => number) {
    let size = 16;
    while (size < count * 2) size *= 2;
    const slots = new Uint32Array(size);
    for (let i = 0; i < count; i++) {
      let s = hashOf(i) & (size - 1);
      while (slots[s] !== 0) s = (s + 1) & (size - 1);
      slots[s] = i + 1;
    }
    this.slots = slots;
  }

  /** The first value `visit` gives for the items in the probe run of hash `h` (any hash may be among them). */
  find<T>(h: number, visit: (i: number) => T | undefined): T | undefined {
    const mask = this.slots.length - 1;
    for (let s = h & mask; this.slots[s] !== 0; s = (s + 1) & mask) {
      const value = visit((this.slots[s] as number) - 1);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}
