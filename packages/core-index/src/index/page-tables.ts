import { blake3Hex } from './blake3.js';

/**
 * Compact tables the index-pages writer (index-pages.ts) fills while the builder streams models, so a build of a
 * million models holds typed arrays and bytes instead of a JavaScript string and array per key (design 11.1,
 * docs/decisions/scale-and-speed.md "A build of any size"). What they hand back is exactly what the whole-catalog
 * writer built: the same keys, the same ranks in the same order.
 */

const CHUNK = 1 << 16;
/** Ends a list of ranks in a page key (a rank is below 2^32 - 1). */
export const END = 0xffffffff;

/** The value of one lower-case hex digit (its character code). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}
export const HEX = /^[0-9a-f]{64}$/;

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

  set(i: number, v: number): void {
    (this.chunks[i >>> 16] as Uint32Array)[i & (CHUNK - 1)] = v;
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
    k.bytes(this.bytesOf(i));
  }

  /** Digest `i`'s 32 bytes (a view: valid until the list changes). */
  bytesOf(i: number): Uint8Array {
    const at = (i & (CHUNK - 1)) * 32;
    return (this.chunks[i >>> 16] as Uint8Array).subarray(at, at + 32);
  }

  /** Digest `i` set to these 32 bytes. */
  set(i: number, bytes: Uint8Array): void {
    (this.chunks[i >>> 16] as Uint8Array).set(bytes, (i & (CHUNK - 1)) * 32);
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
