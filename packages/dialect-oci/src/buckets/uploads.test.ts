import { sha256Hex } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { BlobUploads } from './uploads.js';

// SYNTHETIC bytes, generated here.
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const digestOf = (b: Uint8Array) => `sha256:${sha256Hex(b)}`;
const code = (r: { ok: boolean; response?: { body: unknown } }) => (r.ok ? 'ok' : JSON.parse(String(r.response?.body)).errors[0].code);

function uploads(limit = 1000, used = 0) {
  let n = 0;
  return new BlobUploads(
    () => limit,
    () => used,
    () => `u${++n}`,
  );
}

describe('blob uploads', () => {
  it('monolithic: the closing PUT carries all bytes and the right digest', () => {
    const up = uploads();
    const b = bytes(100);
    const s = up.start('hub/buckets/x');
    const r = up.finish('hub/buckets/x', s.uuid, digestOf(b), b);
    expect(r.ok && Array.from(r.value)).toEqual(Array.from(b));
    expect(code(up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('chunked PATCH with Content-Range, in order; an out-of-order chunk is 416 with the Range held', () => {
    const up = uploads();
    const b = bytes(300);
    const s = up.start('hub/buckets/x');
    expect(up.append('hub/buckets/x', s.uuid, b.subarray(0, 100), '0-99').ok).toBe(true);
    const bad = up.append('hub/buckets/x', s.uuid, b.subarray(150, 200), '150-199');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.response.status).toBe(416);
      expect(bad.response.headers.range).toBe('0-99');
    }
    expect(up.append('hub/buckets/x', s.uuid, b.subarray(100, 200), '100-199').ok).toBe(true);
    const r = up.finish('hub/buckets/x', s.uuid, digestOf(b), b.subarray(200));
    expect(r.ok && r.value.byteLength).toBe(300);
  });

  it('bytes that do not match their digest: DIGEST_INVALID, nothing handed on, session gone', () => {
    const up = uploads();
    const b = bytes(50);
    const s = up.start('hub/buckets/x');
    const flipped = b.slice();
    flipped[7] = (flipped[7] ?? 0) ^ 1;
    const r = up.finish('hub/buckets/x', s.uuid, digestOf(b), flipped);
    expect(code(r)).toBe('DIGEST_INVALID');
    expect(code(up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('past the bucket size limit: 413 SIZE_INVALID and the session dropped', () => {
    const up = uploads(1000, 950);
    const s = up.start('hub/buckets/x');
    const r = up.append('hub/buckets/x', s.uuid, bytes(60));
    expect(code(r)).toBe('SIZE_INVALID');
    if (!r.ok) expect(r.response.status).toBe(413);
    expect(code(up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('an upload of one bucket is unknown in another', () => {
    const up = uploads();
    const s = up.start('hub/buckets/x');
    expect(code(up.append('hub/buckets/y', s.uuid, bytes(1)))).toBe('BLOB_UPLOAD_UNKNOWN');
  });
});
