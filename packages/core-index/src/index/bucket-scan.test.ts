import { describe, expect, it } from 'vitest';
import { bucketEntry, NOT_A_BUCKET } from './bucket-scan.js';
import { canonicalBytes } from './canonical-json.js';
import { PAGE_KIND } from './page-layout.js';

// A look-up finds its entry in the bucket's bytes (bucket-scan.ts): for every key, what parsing the bucket whole finds.

const tricky = [
  'synthetic-org-1/model-1',
  '~synthetic-org-1/model-1',
  'a:"quoted"',
  'back\\slash',
  'w:ünï',
  'emoji 🤗/x',
  'ctl\u0001\n',
  'n', // a key of the postings objects below, at depth one here
  'r',
  '',
];

function bucketOf(entries: Record<string, unknown>, role = 'ids'): Uint8Array {
  return canonicalBytes({ kind: PAGE_KIND, role, entries });
}

describe('bucketEntry', () => {
  it('finds every key as the parsed bucket does, and no absent key', () => {
    const entries: Record<string, unknown> = {};
    tricky.forEach((k, i) => {
      entries[k] = i % 3 === 0 ? ['blake3:00', i, 56, 1829, 'blake3:ff'] : i % 3 === 1 ? { n: i, r: [1, 2, [3]], s: ['}"]'] } : i;
    });
    const bytes = bucketOf(entries, 'terms');
    for (const k of tricky) expect(bucketEntry(bytes, k)).toEqual(entries[k]);
    for (const k of ['synthetic-org-1/model-10', 'synthetic-org-1/model-', 's', 'kind', 'role', 'entries', '"n"'])
      expect(bucketEntry(bytes, k)).toBeUndefined();
  });

  it('answers an empty bucket, and a bucket of one entry', () => {
    expect(bucketEntry(bucketOf({}), 'a')).toBeUndefined();
    expect(bucketEntry(bucketOf({ a: 7 }), 'a')).toBe(7);
    expect(bucketEntry(bucketOf({ a: 7 }), 'b')).toBeUndefined();
  });

  it('says the bytes are not a bucket when they are not one, or end early', () => {
    const bytes = bucketOf({ 'x/y': [1, 2], 'z/w': 3 });
    expect(bucketEntry(canonicalBytes({ kind: PAGE_KIND, role: 'dir', pages: [] }), 'x/y')).toBe(NOT_A_BUCKET);
    expect(bucketEntry(bytes.subarray(0, 20), 'z/w')).toBe(NOT_A_BUCKET);
    expect(bucketEntry(new TextEncoder().encode('{"entries":{"a":1 "b":2}}'), 'b')).toBe(NOT_A_BUCKET);
    expect(bucketEntry(new Uint8Array(), 'a')).toBe(NOT_A_BUCKET);
  });
});
