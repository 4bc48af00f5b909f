import { createHash } from 'node:crypto';
import type { SignatureVerdict } from '@hub/core-index';
import { DEFAULT_EXCLUSIONS } from './compare.js';
import type { Trust } from './trust.js';
import { openSignedStatement, SIGNATURE_FILE } from './verify.js';

/**
 * The check the index cannot make: a manifest of `shards` (byte ranges) or of another hash than SHA-256 (a
 * `needs-bytes` verdict), checked from the bytes a client downloaded (`hub get`). Only the files it holds are
 * checked: a listed file it did not download is neither covered nor missing.
 */

/** The hash algorithms OMS names that node:crypto computes (Python's `hashlib.blake2b()` is BLAKE2b-512). */
const NODE_HASH: Record<string, string> = { sha256: 'sha256', blake2: 'blake2b512', blake2b: 'blake2b512' };

/** Reads `[start, end)` of a downloaded file, or the whole file without a range; undefined when it is not here. */
export type ReadBytes = (path: string, range?: { start: number; end: number }) => Promise<Uint8Array | undefined>;

const SHARD = /^(.+):(\d+):(\d+)$/;

/** `held`: the downloaded files and their sizes. Shards must cover each file from 0 to its size, without a gap. */
export async function verifyFromBytes(
  bundleBytes: Uint8Array,
  trust: Trust,
  held: ReadonlyMap<string, number>,
  read: ReadBytes,
): Promise<SignatureVerdict> {
  const opened = openSignedStatement(bundleBytes, trust, SIGNATURE_FILE);
  if ('verdict' in opened) return opened.verdict;
  const { who, manifest } = opened;
  const unknown = manifest.resources.find((r) => !NODE_HASH[r.algorithm]);
  if (unknown) return { status: 'needs-bytes', ...who, covered: 0, reason: `hash ${unknown.algorithm} is not one this client computes` };
  const listed = new Set<string>();
  const mismatched = new Set<string>();
  /** per file, the shard ranges listed (to check they cover it whole) */
  const ranges = new Map<string, Array<[number, number]>>();
  for (const r of manifest.resources) {
    const shard = manifest.method === 'shards' ? SHARD.exec(r.name) : null;
    if (manifest.method === 'shards' && !shard)
      return { status: 'failed', ...who, covered: 0, reason: `shard resource ${r.name} is not path:start:end` };
    const path = shard ? (shard[1] as string) : r.name;
    const range = shard ? { start: Number(shard[2]), end: Number(shard[3]) } : undefined;
    listed.add(path);
    if (range) ranges.set(path, [...(ranges.get(path) ?? []), [range.start, range.end]]);
    if (!held.has(path)) continue;
    const bytes = await read(path, range);
    if (
      !bytes ||
      createHash(NODE_HASH[r.algorithm] as string)
        .update(bytes)
        .digest('hex') !== r.digest
    )
      mismatched.add(path);
  }
  // the shards of a file must tile it from 0 to its size: bytes outside every shard are not signed
  for (const [path, list] of ranges) {
    if (!held.has(path)) continue;
    let at = 0;
    for (const [start, end] of list.sort((a, b) => a[0] - b[0])) {
      if (start !== at || end <= start) break;
      at = end;
    }
    if (at !== held.get(path)) mismatched.add(path);
  }
  const covered = [...listed].filter((p) => held.has(p) && !mismatched.has(p)).length;
  const excluded = [...DEFAULT_EXCLUSIONS, ...manifest.ignorePaths, SIGNATURE_FILE];
  const unsigned = [...held.keys()].filter((p) => !listed.has(p) && !excluded.some((e) => p === e || p.startsWith(`${e}/`))).sort();
  const bad = [...mismatched].sort();
  const status = bad.length ? 'failed' : unsigned.length ? 'incomplete' : 'verified';
  return {
    status,
    ...who,
    covered,
    ...(unsigned.length ? { unsigned } : {}),
    ...(bad.length ? { mismatched: bad, reason: 'downloaded bytes do not match the signed manifest' } : {}),
  };
}
