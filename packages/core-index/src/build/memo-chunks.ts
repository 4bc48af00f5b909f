// The build memo's chunks read back by record, not held (docs/decisions/scale-and-speed.md, "The memo read by record").
import { type Address, addressOf } from '../index/blake3.js';
import { fnvLanes, fnvLanesOf } from '../index/fnv.js';
import { HashSlots } from '../index/hash-slots.js';
import type { ObjectStore } from '../index/object-store.js';
import { U32List } from '../index/page-tables.js';

/** What {@link KeyedRecords.find} gives when a record that may be the one asked for could not be read. */
export const UNREADABLE = 'unreadable';

/** Chunks read at once while a memo is opened (each is checked, scanned and let go). */
const OPEN_AT_ONCE = 4;

/**
 * How a memo's chunks are read: each whole once when the memo is opened (checked against its address), then, on a
 * store that reads a byte range at once (a local disk), one record at a time by its place, checked against the
 * 64-bit hash its verified bytes gave when opened (a file changed since is a miss, not a wrong answer: the memo is a
 * cache); the chunk the last two reads were in is read whole and kept (a build asks in about the order the memo was
 * written, and then reads each chunk once). A store that cannot (a remote one) keeps every chunk whole, as all did.
 */
export class ChunkReader {
  private readonly held: Array<Uint8Array | undefined>;
  private window = -1;
  private windowBytes: Uint8Array | undefined;
  private last = -1;

  private constructor(
    private readonly objects: ObjectStore,
    readonly addresses: readonly string[],
    private readonly ranged: boolean,
  ) {
    this.held = addresses.map(() => undefined);
  }

  /**
   * Read each chunk, check it, and give it to `scan` with its number; keeps it only when records cannot be read by
   * place. Throws when a chunk is missing or damaged (the memo is then not used).
   */
  static async open(
    objects: ObjectStore,
    addresses: readonly string[],
    scan: (bytes: Uint8Array, chunk: number) => void,
  ): Promise<ChunkReader> {
    const first = addresses[0] as Address | undefined;
    const ranged = first !== undefined && objects.readRange?.(first, 0, 0) instanceof Uint8Array;
    const reader = new ChunkReader(objects, addresses, ranged);
    for (let c = 0; c < addresses.length; c += OPEN_AT_ONCE) {
      const batch = addresses.slice(c, c + OPEN_AT_ONCE);
      const read = await Promise.all(batch.map((a) => checkedChunk(objects, a)));
      read.forEach((bytes, k) => {
        scan(bytes, c + k);
        if (!ranged) reader.held[c + k] = bytes;
      });
    }
    return reader;
  }

  /**
   * The bytes of a record, `[buffer, start]`: from a chunk held or the window, or read by place and checked against
   * `check` (two 32-bit hash lanes); undefined when it cannot be read or does not check.
   */
  record(chunk: number, at: number, length: number, check0: number, check1: number): [Uint8Array, number] | undefined {
    const held = this.held[chunk] ?? (this.window === chunk ? this.windowBytes : undefined);
    if (held) return at + length <= held.length ? [held, at] : undefined;
    const address = this.addresses[chunk] as Address | undefined;
    if (address === undefined) return undefined;
    if (this.last === chunk) {
      const whole = checkedNow(this.objects, address);
      if (whole) {
        [this.window, this.windowBytes] = [chunk, whole];
        return at + length <= whole.length ? [whole, at] : undefined;
      }
    }
    this.last = chunk;
    const bytes = this.ranged ? this.objects.readRange?.(address, at, length) : undefined;
    if (!(bytes instanceof Uint8Array) || bytes.length !== length) return undefined;
    fnvLanesOf(bytes);
    return fnvLanes[0] === check0 && fnvLanes[1] === check1 ? [bytes, 0] : undefined;
  }

  /** Every chunk in order, each read whole and checked (a pass over all records); a missing or damaged one is skipped. */
  *chunks(): Generator<Uint8Array> {
    for (let c = 0; c < this.addresses.length; c++) {
      const held = this.held[c];
      if (held) {
        yield held;
        continue;
      }
      const whole = checkedNow(this.objects, this.addresses[c] as string);
      if (whole) yield whole;
    }
  }
}

/**
 * A memo object's bytes read at once (a store that can: the filesystem's), when they hash to its address; else
 * undefined (missing, damaged, or a store that reads only with a promise).
 */
export function checkedNow(objects: ObjectStore, address: string): Uint8Array | undefined {
  const bytes = objects.readBytes?.(address as Address);
  return bytes instanceof Uint8Array && addressOf(bytes) === address ? bytes : undefined;
}

/** A memo object's bytes, checked: at once when the store can, else through `get`; throws when missing or damaged. */
export async function checkedChunk(objects: ObjectStore, address: string): Promise<Uint8Array> {
  const bytes = objects.readBytes ? objects.readBytes(address as Address) : (await objects.get(address as Address))?.bytes;
  const got = bytes instanceof Promise ? await bytes : bytes;
  if (!got || addressOf(got) !== address) throw new Error(`memo object ${address} is missing or damaged`);
  return got;
}

/** Two 32-bit hash lanes of `length` bytes of `bytes` from `at`, pushed to `checks`. */
function pushCheck(checks: U32List, bytes: Uint8Array, at: number, length: number): void {
  fnvLanesOf(bytes.subarray(at, at + length));
  checks.push(fnvLanes[0] as number);
  checks.push(fnvLanes[1] as number);
}

/** Records of one size checked together, by place (about 1 KB of rows or facts: one read, 8 bytes of checks). */
const GROUP = 16;

/**
 * Records of one size, numbered in the order they were written (a model's by its rank, a page's by its number). They
 * are checked in groups of {@link GROUP} within a chunk (a read by place reads the record's group), so the checks
 * kept are half a byte a record.
 */
export class FixedRecords {
  private constructor(
    private readonly reader: ChunkReader,
    readonly size: number,
    readonly count: number,
    /** the number of each chunk's first record, and of its first group */
    private readonly firsts: Uint32Array,
    private readonly groupFirsts: Uint32Array,
    private readonly checks: Uint32Array,
  ) {}

  static async open(objects: ObjectStore, addresses: readonly string[], size: number): Promise<FixedRecords> {
    const firsts = new Uint32Array(addresses.length + 1);
    const groupFirsts = new Uint32Array(addresses.length + 1);
    const checks = new U32List();
    const reader = await ChunkReader.open(objects, addresses, (bytes, c) => {
      const n = Math.floor(bytes.length / size);
      for (let k = 0; k < n; k += GROUP) pushCheck(checks, bytes, k * size, Math.min(GROUP, n - k) * size);
      firsts[c + 1] = (firsts[c] as number) + n;
      groupFirsts[c + 1] = (groupFirsts[c] as number) + Math.ceil(n / GROUP);
    });
    return new FixedRecords(reader, size, firsts[addresses.length] as number, firsts, groupFirsts, checks.flat());
  }

  /** Record `n`, `[buffer, start]`, or undefined (out of range, or not readable). */
  at(n: number): [Uint8Array, number] | undefined {
    if (!(Number.isInteger(n) && n >= 0 && n < this.count)) return undefined;
    let [lo, hi] = [0, this.firsts.length - 2];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.firsts[mid] as number) <= n) lo = mid;
      else hi = mid - 1;
    }
    const k = n - (this.firsts[lo] as number);
    const first = k - (k % GROUP);
    const records = Math.min(GROUP, (this.firsts[lo + 1] as number) - (this.firsts[lo] as number) - first);
    const g = (this.groupFirsts[lo] as number) + first / GROUP;
    const got = this.reader.record(
      lo,
      first * this.size,
      records * this.size,
      this.checks[g * 2] as number,
      this.checks[g * 2 + 1] as number,
    );
    return got && [got[0], got[1] + (k - first) * this.size];
  }
}

/**
 * Records of any size found by a 32-bit hash of their key: an open-addressing table of record numbers, and each
 * record's chunk, place, length and check in typed arrays (about 30 bytes a record, where the records themselves are
 * not held). Records with the same hash are all offered; the caller reads each and keeps the one of its key.
 */
export class KeyedRecords {
  private constructor(
    private readonly reader: ChunkReader,
    private readonly slots: HashSlots,
    private readonly hashes: Uint32Array,
    private readonly chunkOf: Uint32Array,
    private readonly places: Uint32Array,
    private readonly lengths: Uint32Array,
    private readonly checks: Uint32Array,
  ) {}

  /**
   * `each(bytes)` lists a chunk's records: it calls `add(start, length, hash)` for each, in order.
   */
  static async open(
    objects: ObjectStore,
    addresses: readonly string[],
    each: (bytes: Uint8Array, add: (start: number, length: number, hash: number) => void) => void,
  ): Promise<KeyedRecords> {
    const lists = { hashes: new U32List(), chunks: new U32List(), places: new U32List(), lengths: new U32List(), checks: new U32List() };
    const reader = await ChunkReader.open(objects, addresses, (bytes, c) =>
      each(bytes, (start, length, hash) => {
        pushCheck(lists.checks, bytes, start, length);
        lists.hashes.push(hash >>> 0);
        lists.chunks.push(c);
        lists.places.push(start);
        lists.lengths.push(length);
      }),
    );
    const hashes = lists.hashes.flat();
    const slots = new HashSlots(hashes.length, (r) => hashes[r] as number);
    return new KeyedRecords(reader, slots, hashes, lists.chunks.flat(), lists.places.flat(), lists.lengths.flat(), lists.checks.flat());
  }

  get count(): number {
    return this.hashes.length;
  }

  /**
   * The first record of this hash for which `match(buffer, start)` gives a value, and that value; undefined when
   * there is none, {@link UNREADABLE} when there is none among the records that could be read and one could not be.
   */
  find<T>(hash: number, match: (bytes: Uint8Array, start: number) => T | undefined): T | undefined | typeof UNREADABLE {
    const h = hash >>> 0;
    let unreadable = false;
    const found = this.slots.find(h, (r) => {
      if (this.hashes[r] !== h) return undefined;
      const got = this.reader.record(
        this.chunkOf[r] as number,
        this.places[r] as number,
        this.lengths[r] as number,
        this.checks[r * 2] as number,
        this.checks[r * 2 + 1] as number,
      );
      if (!got) unreadable = true;
      return got && match(got[0], got[1]);
    });
    return found === undefined && unreadable ? UNREADABLE : found;
  }

  /** Every chunk whole, in order (a pass over all records). */
  chunks(): Generator<Uint8Array> {
    return this.reader.chunks();
  }
}
