import { blake3Hex } from './blake3.js';
import { keyHash } from './page-layout.js';

/**
 * Compact tables the index-pages writer (index-pages.ts) fills while the builder streams models, so a build of a
 * million models holds typed arrays and bytes instead of a JavaScript string and array per key (design 11.1,
 * docs/decisions/scale-and-speed.md "A build of any size"). What they hand back is exactly what the whole-catalog
 * writer built: the same keys, the same ranks in the same order.
 */

const CHUNK = 1 << 16;
/** Ends a list of ranks in a page key (a rank is below 2^32 - 1). */
const END = 0xffffffff;

/** The value of one lower-case hex digit (its character code). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}
const HEX = /^[0-9a-f]{64}$/;

/** Whether a digest is 64 lower-case hex digits (the form kept as 32 bytes). */
export const isHexDigest = (d: string): boolean => HEX.test(d);

/** Write a digest of 64 lower-case hex digits as its 32 bytes at `at`. */
export function putDigest(out: Uint8Array, at: number, hex: string): void {
  for (let k = 0; k < 32; k++) out[at + k] = (nibble(hex.charCodeAt(k * 2)) << 4) | nibble(hex.charCodeAt(k * 2 + 1));
}

/** The 32 bytes at `at` as 64 lower-case hex digits. */
export function digestAt(buf: Uint8Array, at: number): string {
  let s = '';
  for (let k = 0; k < 32; k++) s += HEX_BYTE[buf[at + k] as number];
  return s;
}

/** A growing list of unsigned 32-bit numbers in fixed chunks (no copy of everything when it grows). */
export class U32List {
  private chunks: Uint32Array[] = [];
  length = 0;

  push(v: number): void {
    const at = this.length & (CHUNK - 1);
    if (at === 0) this.chunks.push(new Uint32Array(CHUNK));
    (this.chunks[this.chunks.length - 1] as Uint32Array)[at] = v;
    this.length++;
  }

  get(i: number): number {
    return (this.chunks[i >>> 16] as Uint32Array)[i & (CHUNK - 1)] as number;
  }

  /** Let every value go (the list is then empty). */
  clear(): void {
    this.chunks = [];
    this.length = 0;
  }

  /** One flat array of every value (the chunks are let go). */
  flat(): Uint32Array {
    const out = new Uint32Array(this.length);
    for (const [k, c] of this.chunks.entries()) out.set(c.subarray(0, Math.min(CHUNK, this.length - k * CHUNK)), k * CHUNK);
    this.chunks = [];
    return out;
  }
}

/** A growing list of 256-bit digests given as 64 lower-case hex digits, kept as 32 bytes each in fixed chunks. */
export class DigestList {
  private chunks: Uint8Array[] = [];
  length = 0;

  /** Let every digest go (the list is then empty). */
  clear(): void {
    this.chunks = [];
    this.length = 0;
  }

  /** Append one digest (64 lower-case hex digits). */
  push(hex: string): void {
    const at = this.length & (CHUNK - 1);
    if (at === 0) this.chunks.push(new Uint8Array(CHUNK * 32));
    const chunk = this.chunks[this.chunks.length - 1] as Uint8Array;
    putDigest(chunk, at * 32, hex);
    this.length++;
  }

  /** Digest `i` as 64 lower-case hex digits. */
  hexOf(i: number): string {
    const chunk = this.chunks[i >>> 16] as Uint8Array;
    return digestAt(chunk, (i & (CHUNK - 1)) * 32);
  }

  /** Digest `i`'s 32 bytes appended to a page key. */
  into(k: PageKey, i: number): void {
    const at = (i & (CHUNK - 1)) * 32;
    k.bytes((this.chunks[i >>> 16] as Uint8Array).subarray(at, at + 32));
  }

  /** Digests `a` and `b` compared byte by byte. */
  compare(a: number, b: number): number {
    const ca = this.chunks[a >>> 16] as Uint8Array;
    const cb = this.chunks[b >>> 16] as Uint8Array;
    const oa = (a & (CHUNK - 1)) * 32;
    const ob = (b & (CHUNK - 1)) * 32;
    for (let k = 0; k < 32; k++) {
      const d = (ca[oa + k] as number) - (cb[ob + k] as number);
      if (d !== 0) return d;
    }
    return 0;
  }
}

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * SHA-256 digest → ranks of the models holding a file with it: 40 bytes per file (the digest as 32 bytes, its hash
 * and the rank) instead of a Map of strings to arrays. A digest that is not 64 lower-case hex is kept as a string.
 */
export class DigestPostings {
  private readonly digests = new DigestList();
  private readonly hashes = new U32List();
  private readonly ranks = new U32List();
  private readonly odd = new Map<string, number[]>();
  /** files added (each file of each model, a digest twice in one model counted twice) */
  files = 0;

  add(sha256: string, rank: number): void {
    this.files++;
    if (!HEX.test(sha256)) {
      const list = this.odd.get(sha256);
      if (!list) this.odd.set(sha256, [rank]);
      else if (list[list.length - 1] !== rank) list.push(rank);
      return;
    }
    this.digests.push(sha256);
    this.hashes.push(keyHash(sha256));
    this.ranks.push(rank);
  }

  /**
   * The distinct digests grouped, for {@link forEachBucket}: returns how many there are. Sorts the files by (hash,
   * digest, rank), so each digest's files are one run with its ranks ascending.
   */
  group(): number {
    const hashes = this.hashes.flat();
    const ranks = this.ranks.flat();
    const order = new Uint32Array(ranks.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort(
      (a, b) => (hashes[a] as number) - (hashes[b] as number) || this.digests.compare(a, b) || (ranks[a] as number) - (ranks[b] as number),
    );
    const starts = new U32List();
    for (let k = 0; k < order.length; k++) {
      if (
        k === 0 ||
        hashes[order[k] as number] !== hashes[order[k - 1] as number] ||
        this.digests.compare(order[k] as number, order[k - 1] as number) !== 0
      )
        starts.push(k);
    }
    this.sorted = { hashes, ranks, order, starts: starts.flat() };
    return this.sorted.starts.length + this.odd.size;
  }

  private sorted: { hashes: Uint32Array; ranks: Uint32Array; order: Uint32Array; starts: Uint32Array } | undefined;

  /**
   * Each bucket of `buckets` (a power of two) in order, {@link group} first: `fn` gets the bucket's page key (when `key`
   * is given: its digests and ranks appended to it, see {@link PageKey}) and its entries, made only when asked for
   * (a bucket the last build wrote is not made again).
   */
  async forEachBucket(
    buckets: number,
    fn: (bucket: number, key: string | undefined, entries: () => Record<string, number[]>) => Promise<void>,
    key?: PageKey,
  ): Promise<void> {
    const s = this.sorted;
    if (!s) throw new Error('DigestPostings: group() first');
    const groups = s.starts.length;
    // Groups by bucket (a counting sort keeps the sorted order inside a bucket).
    const counts = new Uint32Array(buckets + 1);
    for (let g = 0; g < groups; g++)
      (counts[((s.hashes[s.order[s.starts[g] as number] as number] as number) & (buckets - 1)) + 1] as number)++;
    for (let b = 0; b < buckets; b++) counts[b + 1] = (counts[b + 1] as number) + (counts[b] as number);
    const byBucket = new Uint32Array(groups);
    const fill = counts.slice(0, buckets);
    for (let g = 0; g < groups; g++) {
      const b = (s.hashes[s.order[s.starts[g] as number] as number] as number) & (buckets - 1);
      byBucket[(fill[b] as number)++] = g;
    }
    const oddByBucket = new Map<number, string[]>();
    for (const key of this.odd.keys()) {
      const b = keyHash(key) & (buckets - 1);
      oddByBucket.set(b, [...(oddByBucket.get(b) ?? []), key]);
    }
    /** Each rank of group `g` once, ascending (a model holding a digest twice is listed once). */
    const eachRank = (g: number, to: (r: number) => void) => {
      const end = g + 1 < groups ? (s.starts[g + 1] as number) : s.order.length;
      let last = -1;
      for (let k = s.starts[g] as number; k < end; k++) {
        const r = s.ranks[s.order[k] as number] as number;
        if (r !== last) to(r);
        last = r;
      }
    };
    for (let b = 0; b < buckets; b++) {
      const from = counts[b] as number;
      const to = counts[b + 1] as number;
      const odd = oddByBucket.get(b) ?? [];
      let pageKey: string | undefined;
      if (key) {
        key.start('shas').u32(to - from);
        for (let j = from; j < to; j++) {
          const g = byBucket[j] as number;
          this.digests.into(key, s.order[s.starts[g] as number] as number);
          eachRank(g, (r) => key.u32(r));
          key.u32(END); // (no rank is this: the digest's ranks end here)
        }
        for (const o of odd) {
          key.str(o).u32((this.odd.get(o) as number[]).length);
          for (const r of this.odd.get(o) as number[]) key.u32(r);
        }
        pageKey = key.key();
      }
      await fn(b, pageKey, () => {
        const entries: Record<string, number[]> = {};
        for (let j = from; j < to; j++) {
          const g = byBucket[j] as number;
          const list: number[] = [];
          eachRank(g, (r) => list.push(r));
          entries[this.digests.hexOf(s.order[s.starts[g] as number] as number)] = list;
        }
        for (const o of odd) entries[o] = this.odd.get(o) as number[];
        return entries;
      });
    }
  }
}

const textOf = (v: number) => (v === Number.NEGATIVE_INFINITY ? '' : new Date(v).toISOString());

/**
 * A sort column of times (`createdAt`, `lastModified`, or '' for none), pushed as table-facts.ts `timeKey` gives them:
 * kept as numbers (8 bytes a model instead of a string of about 48) while every time is in toISOString's form, where
 * number order is text order ('' first, as -Infinity); at the first time in another form (pushed as its text) it turns
 * back to the texts, so the order is always the texts' order.
 */
export class TimeColumn {
  private times: number[] | undefined = [];
  private texts: string[] | undefined;

  push(t: number | string): void {
    const times = this.times;
    if (times) {
      if (typeof t === 'number') return void times.push(t);
      this.texts = times.map(textOf);
      this.times = undefined;
    }
    (this.texts as string[]).push(typeof t === 'number' ? textOf(t) : t);
  }

  /** The keys to sort by, in the texts' order: the times, or the texts themselves. */
  keys(): number[] | string[] {
    return this.times ?? (this.texts as string[]);
  }
}

/** The strings in lexical (UTF-16 code unit) order, each once. */
export function uniqueSorted(items: readonly string[]): string[] {
  const sorted = items.slice().sort();
  let w = 0;
  for (let r = 0; r < sorted.length; r++) if (r === 0 || sorted[r] !== sorted[w - 1]) sorted[w++] = sorted[r] as string;
  sorted.length = w;
  return sorted;
}

/** Whether a sorted array holds `key` (binary search). */
export function holds(sorted: readonly string[], key: string): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo] === key;
}

const keyEncoder = new TextEncoder();

/**
 * The key of a look-up page (docs/decisions/scale-and-speed.md, "A day costs what changed"): the bytes that decide the
 * page, appended from the compact tables (each string with its length, each number as 32 bits, each digest as its 32
 * bytes, so two different contents never give the same bytes), hashed with BLAKE3 into 32 hex digits. One key is one
 * page; a page whose key the last build recorded is that build's page, and is neither serialized nor hashed again.
 */
export class PageKey {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  private at = 0;

  /** Start a key of a page of `role`. */
  start(role: string): this {
    this.at = 0;
    return this.str(role);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    bigger.set(this.buf.subarray(0, this.at));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  u32(n: number): this {
    this.room(4);
    this.view.setUint32(this.at, n);
    this.at += 4;
    return this;
  }

  str(s: string): this {
    this.room(4 + s.length * 3);
    const { written } = keyEncoder.encodeInto(s, this.buf.subarray(this.at + 4));
    this.view.setUint32(this.at, written);
    this.at += 4 + written;
    return this;
  }

  /** Bytes whose length the caller fixes or has given before them. */
  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
    return this;
  }

  /**
   * 32 hex digits of the BLAKE3 of what was appended. A buffer grown past {@link KEPT_KEY_BYTES} for a large key (the
   * models list's: 18 MB at 1,000,000 models) is let go, not kept for the rest of the build.
   */
  key(): string {
    const key = blake3Hex(this.buf.subarray(0, this.at)).slice(0, 32);
    if (this.buf.length > KEPT_KEY_BYTES) {
      this.buf = new Uint8Array(4096);
      this.view = new DataView(this.buf.buffer);
    }
    return key;
  }
}

/** The largest buffer a {@link PageKey} keeps between keys. */
const KEPT_KEY_BYTES = 256 * 1024;
