import { describe, expect, it } from 'vitest';
import type { Address } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import { BytesStore } from '../testing/memo-stores.js';
import { FixedRecords, KeyedRecords } from './memo-chunks.js';
import { ChunkWriter } from './memo-records.js';

/** A store that counts how the memo's chunks are read, and answers `damaged` bytes for a range or a whole read. */
class ReadCountingStore extends BytesStore {
  ranges = 0;
  wholes = 0;
  /** an address and a byte of it answered flipped by `readRange` and `readBytes` (a file changed after it was checked) */
  damaged: { address: string; at: number } | undefined;
  override readRange(address: Address, start: number, length: number): Uint8Array | undefined {
    this.ranges++;
    const got = super.readRange(address, start, length);
    const d = this.damaged;
    return got && d?.address === address && d.at >= start && d.at < start + length
      ? got.map((b, i) => (i === d.at - start ? b ^ 1 : b))
      : got;
  }
  override readBytes(address: Address): Uint8Array | undefined {
    this.wholes++;
    const got = super.readBytes(address);
    const d = this.damaged;
    return got && d?.address === address ? got.map((b, i) => (i === d.at ? b ^ 1 : b)) : got;
  }
}

/** `store` as a remote store reads: a range only with a promise. */
const remote = (store: BytesStore): ObjectStore =>
  Object.assign(Object.create(store) as BytesStore, {
    readRange: (address: Address, start: number, length: number) => Promise.resolve(store.readRange(address, start, length)),
  });

const SIZE = 56;
/** Record n of a SYNTHETIC memo: its number in the first four bytes, then bytes of it. */
function recordOf(n: number): Uint8Array {
  const r = new Uint8Array(SIZE).map((_, i) => (n * 31 + i) & 0xff);
  new DataView(r.buffer).setUint32(0, n);
  return r;
}

/** `count` records written as a memo writes them (chunks of about 1 MiB); their chunks' addresses. */
async function written(store: BytesStore, count: number): Promise<string[]> {
  const w = new ChunkWriter(store);
  for (let n = 0; n < count; n++) {
    const [buf, at] = w.room(SIZE);
    buf.set(recordOf(n), at);
    w.end();
  }
  return w.done();
}

const numberAt = (got: [Uint8Array, number] | undefined) =>
  got ? new DataView(got[0].buffer, got[0].byteOffset).getUint32(got[1]) : undefined;
// 50,000 records of 56 bytes: three chunks
const COUNT = 50_000;

describe("the build memo's chunks read by record", () => {
  it('reads each record by its place in order, a chunk whole once its second record is asked', async () => {
    const store = new ReadCountingStore();
    const addresses = await written(store, COUNT);
    expect(addresses).toHaveLength(3);
    const records = await FixedRecords.open(store, addresses, SIZE);
    expect(records.count).toBe(COUNT);
    [store.ranges, store.wholes] = [0, 0];
    for (let n = 0; n < COUNT; n++) expect(numberAt(records.at(n))).toBe(n);
    // each chunk: its first record by place, then the chunk whole
    expect(store.ranges).toBe(3);
    expect(store.wholes).toBe(3);
    expect(records.at(COUNT)).toBeUndefined();
    expect(records.at(-1)).toBeUndefined();
  });

  it('reads records asked out of order by their places, not their chunks', async () => {
    const store = new ReadCountingStore();
    const records = await FixedRecords.open(store, await written(store, COUNT), SIZE);
    [store.ranges, store.wholes] = [0, 0];
    // alternating between the first and the last chunk: never two in a row from one chunk
    for (let k = 0; k < 1000; k++) {
      const n = k % 2 ? COUNT - 1 - k : k;
      expect(numberAt(records.at(n))).toBe(n);
    }
    expect(store.ranges).toBe(1000);
    expect(store.wholes).toBe(0);
    // about a chunk's end (18,725 records of 56 bytes fill the first, whose last group holds five)
    for (const n of [18_724, 18_725, 18_720, 37_449, 18_721, 37_450]) expect(numberAt(records.at(n))).toBe(n);
    expect(store.wholes).toBe(0);
  });

  it('takes a record whose bytes changed after the memo was opened as missing (with its group of 16), and the others as they are', async () => {
    const store = new ReadCountingStore();
    const addresses = await written(store, COUNT);
    const records = await FixedRecords.open(store, addresses, SIZE);
    // record 10 of the first chunk changed on the disk: records 0 to 15 are checked together
    store.damaged = { address: addresses[0] as string, at: 10 * SIZE + 7 };
    expect(records.at(10)).toBeUndefined();
    expect(numberAt(records.at(16))).toBe(16);
    expect(records.at(15)).toBeUndefined();
    // asked twice in a row: the chunk read whole does not hash to its address, so it is not kept
    expect(records.at(10)).toBeUndefined();
    expect(records.at(10)).toBeUndefined();
    expect(numberAt(records.at(17))).toBe(17);
    // the last group of a chunk holds fewer records
    const last = COUNT - 1;
    store.damaged = undefined;
    expect(numberAt(records.at(last))).toBe(last);
  });

  it('refuses to open a memo whose chunk does not hash to its address', async () => {
    const store = new ReadCountingStore();
    const addresses = await written(store, COUNT);
    store.damaged = { address: addresses[1] as string, at: 99 };
    await expect(FixedRecords.open(store, addresses, SIZE)).rejects.toThrow('missing or damaged');
  });

  it('keeps the chunks whole on a store that reads a range only with a promise', async () => {
    const store = new ReadCountingStore();
    const records = await FixedRecords.open(remote(store), await written(store, COUNT), SIZE);
    [store.ranges, store.wholes] = [0, 0];
    for (const n of [0, COUNT - 1, 20_000, 5]) expect(numberAt(records.at(n))).toBe(n);
    expect([store.ranges, store.wholes]).toEqual([0, 0]);
  });

  it('offers every record of a hash, and finds each key among them', async () => {
    const store = new ReadCountingStore();
    const addresses = await written(store, COUNT);
    // every record under one of 64 hashes: many records share each
    const keyed = await KeyedRecords.open(store, addresses, (buf, add) => {
      for (let at = 0; at + SIZE <= buf.length; at += SIZE) add(at, SIZE, new DataView(buf.buffer, buf.byteOffset).getUint32(at) % 64);
    });
    expect(keyed.count).toBe(COUNT);
    for (const n of [0, 1, 15, 16, 33_333, COUNT - 1])
      expect(keyed.find(n % 64, (buf, at) => (numberAt([buf, at]) === n ? n : undefined))).toBe(n);
    expect(keyed.find(3, (buf, at) => (numberAt([buf, at]) === 4 ? 4 : undefined))).toBeUndefined();
  });
});
