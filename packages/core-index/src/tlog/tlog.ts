import { sha256 } from '@noble/hashes/sha256';

/**
 * The Merkle tree of a transparency log as RFC 6962 (section 2.1) defines it and C2SP tlog-tiles serves it:
 * SHA-256, leaf hash `H(0x00 || entry)`, node hash `H(0x01 || left || right)`, tiles of height 8 (256 hashes).
 * The log of the daily archive is small (one leaf per day), so proofs are computed from the leaf hashes.
 */
export const HASH_SIZE = 32;
export const TILE_WIDTH = 256;

export type Hash = Uint8Array;

export function leafHash(entry: Uint8Array): Hash {
  const b = new Uint8Array(entry.byteLength + 1);
  b.set(entry, 1);
  return sha256(b);
}

export function nodeHash(left: Hash, right: Hash): Hash {
  const b = new Uint8Array(1 + 2 * HASH_SIZE);
  b[0] = 1;
  b.set(left, 1);
  b.set(right, 1 + HASH_SIZE);
  return sha256(b);
}

export function equalHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let d = 0;
  for (let i = 0; i < a.byteLength; i++) d |= (a[i] as number) ^ (b[i] as number);
  return d === 0;
}

/** The largest power of two smaller than n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[lo:hi]) over leaf hashes (RFC 6962 2.1); the empty tree hashes to SHA-256 of nothing. */
export function treeHash(leaves: readonly Hash[], lo = 0, hi = leaves.length): Hash {
  const n = hi - lo;
  if (n === 0) return sha256(new Uint8Array(0));
  if (n === 1) return leaves[lo] as Hash;
  const k = split(n);
  return nodeHash(treeHash(leaves, lo, lo + k), treeHash(leaves, lo + k, hi));
}

/** PATH(m, D[n]) of RFC 6962 2.1.1: the inclusion proof of leaf `index` in the tree of all `leaves`. */
export function inclusionProof(index: number, leaves: readonly Hash[], lo = 0, hi = leaves.length): Hash[] {
  const n = hi - lo;
  if (n <= 1) return [];
  const k = split(n);
  return index < k
    ? [...inclusionProof(index, leaves, lo, lo + k), treeHash(leaves, lo + k, hi)]
    : [...inclusionProof(index - k, leaves, lo + k, hi), treeHash(leaves, lo, lo + k)];
}

/** RFC 9162 2.1.3.2: does `proof` show that `leaf` is entry `index` of the tree of `size` with `root`? */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[], root: Hash): boolean {
  if (index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalHash(r, root);
}

/** PROOF(m, D[n]) of RFC 6962 2.1.2: the consistency proof from the tree of the first `m` leaves to all of them. */
export function consistencyProof(m: number, leaves: readonly Hash[]): Hash[] {
  if (m <= 0 || m >= leaves.length) return [];
  return subproof(m, leaves, 0, leaves.length, true);
}

function subproof(m: number, leaves: readonly Hash[], lo: number, hi: number, whole: boolean): Hash[] {
  const n = hi - lo;
  if (m === n) return whole ? [] : [treeHash(leaves, lo, hi)];
  const k = split(n);
  return m <= k
    ? [...subproof(m, leaves, lo, lo + k, whole), treeHash(leaves, lo + k, hi)]
    : [...subproof(m - k, leaves, lo + k, hi, false), treeHash(leaves, lo, lo + k)];
}

/** RFC 9162 2.1.4.2: does `proof` show that the tree of `size2` with `root2` extends the one of `size1` with `root1`? */
export function verifyConsistency(size1: number, size2: number, root1: Hash, root2: Hash, proof: readonly Hash[]): boolean {
  if (size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && equalHash(root1, root2);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Hash;
  let sr = path[0] as Hash;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalHash(fr, root1) && equalHash(sr, root2);
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

// ---- tiles (C2SP tlog-tiles) ------------------------------------------------------------------

/** A tile: `level` 0.. for hash tiles, `entries` for an entry bundle; `width` 1..256 (256 is a full tile). */
export interface Tile {
  level: number | 'entries';
  n: number;
  width: number;
}

/** `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`, N in zero-padded 3-digit elements, all but the last with `x`. */
export function tilePath(t: Tile): string {
  let n = t.n;
  let s = String(n % 1000).padStart(3, '0');
  while (n >= 1000) {
    n = Math.floor(n / 1000);
    s = `x${String(n % 1000).padStart(3, '0')}/${s}`;
  }
  return `tile/${t.level}/${s}${t.width < TILE_WIDTH ? `.p/${t.width}` : ''}`;
}

/** The tile a path names, or undefined unless the path is exactly as {@link tilePath} writes it. */
export function parseTilePath(path: string): Tile | undefined {
  const m = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/){0,5}[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  if (!m) return undefined;
  const level = m[1] === 'entries' ? 'entries' : Number(m[1]);
  if (typeof level === 'number' && level > 63) return undefined;
  const n = (m[2] as string).split('/').reduce((acc, part) => acc * 1000 + Number(part.replace('x', '')), 0);
  // A full tile has no `.p/W` suffix; a partial one names a width from 1 to 255.
  const width = m[3] ? Number(m[3]) : TILE_WIDTH;
  if ((m[3] && width >= TILE_WIDTH) || !Number.isSafeInteger(n)) return undefined;
  const t: Tile = { level, n, width };
  return tilePath(t) === path ? t : undefined;
}

/** Every tile (hash tiles of every level, then entry bundles) a tree of `size` leaves is served as. */
export function tilesForSize(size: number): Tile[] {
  const out: Tile[] = [];
  const add = (level: number | 'entries', count: number) => {
    for (let n = 0; n < Math.floor(count / TILE_WIDTH); n++) out.push({ level, n, width: TILE_WIDTH });
    if (count % TILE_WIDTH) out.push({ level, n: Math.floor(count / TILE_WIDTH), width: count % TILE_WIDTH });
  };
  for (let level = 0, count = size; count > 0; level++, count = Math.floor(count / TILE_WIDTH)) add(level, count);
  add('entries', size);
  return out;
}

/** The hashes at tile level `level`: the MTH of each full subtree of 256^level leaves, left to right. */
export function levelHashes(leaves: readonly Hash[], level: number): Hash[] {
  let row = [...leaves];
  for (let l = 0; l < level; l++) {
    const next: Hash[] = [];
    for (let i = 0; i + TILE_WIDTH <= row.length; i += TILE_WIDTH) next.push(treeHash(row, i, i + TILE_WIDTH));
    row = next;
  }
  return row;
}

/** The bytes of hash tile `t` (its `width` hashes concatenated) over the given leaf hashes. */
export function hashTileBytes(leaves: readonly Hash[], t: Tile & { level: number }): Uint8Array {
  const row = levelHashes(leaves, t.level);
  const out = new Uint8Array(t.width * HASH_SIZE);
  for (let i = 0; i < t.width; i++) {
    const h = row[t.n * TILE_WIDTH + i];
    if (!h) throw new RangeError(`${tilePath(t)} lies beyond the tree`);
    out.set(h, i * HASH_SIZE);
  }
  return out;
}

/** An entry bundle: each entry as a big-endian uint16 length and its bytes. */
export function bundleBytes(entries: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(entries.reduce((n, e) => n + 2 + e.byteLength, 0));
  let at = 0;
  for (const e of entries) {
    if (e.byteLength > 0xffff) throw new RangeError('a log entry is longer than 65535 bytes');
    out[at] = e.byteLength >> 8;
    out[at + 1] = e.byteLength & 0xff;
    out.set(e, at + 2);
    at += 2 + e.byteLength;
  }
  return out;
}

/** The entries of a bundle; throws on a truncated one. */
export function parseBundle(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.byteLength) {
    if (at + 2 > bytes.byteLength) throw new RangeError('entry bundle: truncated length');
    const len = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + len > bytes.byteLength) throw new RangeError('entry bundle: truncated entry');
    out.push(bytes.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return out;
}

/** Standard base64 (RFC 4648 section 4), as notes and checkpoints use it. */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.byteLength; i++) s += String.fromCharCode(bytes[i] as number);
  return btoa(s);
}

/** Standard base64 to bytes; undefined when it is not canonical base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return undefined;
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return toBase64(out) === text ? out : undefined;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.byteLength; i++) s += (bytes[i] as number).toString(16).padStart(2, '0');
  return s;
}
