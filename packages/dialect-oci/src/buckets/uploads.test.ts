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

describe('open uploads are bounded (an abandoned push does not hold its bytes forever)', () => {
  const R = 'hub/buckets/x';
  function clocked(limit = 1000, maxOpen = 1000) {
    let n = 0;
    let now = 0;
    const up = new BlobUploads(
      () => limit,
      () => 0,
      () => `u${++n}`,
      () => now,
      60,
      maxOpen,
    );
    return { up, advance: (ms: number) => (now += ms) };
  }

  it('drops a session idle for longer than the idle time, with its bytes; a session that keeps receiving stays', () => {
    const { up, advance } = clocked();
    const idle = up.start(R);
    const busy = up.start(R);
    expect(up.append(R, idle.uuid, bytes(100)).ok).toBe(true);
    for (let i = 0; i < 4; i++) {
      advance(30_000);
      expect(up.append(R, busy.uuid, bytes(10, i)).ok).toBe(true);
    }
    expect(code(up.get(R, idle.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
    expect(code(up.append(R, idle.uuid, bytes(1)))).toBe('BLOB_UPLOAD_UNKNOWN');
    expect(up.get(R, busy.uuid).ok).toBe(true);
    expect(up.open).toBe(1);
    advance(61_000);
    expect(up.open).toBe(0);
  });

  it('counts the bytes of every open upload of a bucket against its limit', () => {
    const { up } = clocked(250);
    const a = up.start(R);
    const b = up.start(R);
    const other = up.start('hub/buckets/y');
    expect(up.append(R, a.uuid, bytes(100)).ok).toBe(true);
    expect(up.append(R, b.uuid, bytes(100)).ok).toBe(true);
    expect(up.append('hub/buckets/y', other.uuid, bytes(200)).ok).toBe(true); // another bucket's limit
    const over = up.append(R, b.uuid, bytes(100));
    expect(code(over)).toBe('SIZE_INVALID');
    expect(up.get(R, a.uuid).ok).toBe(true);
  });

  it('keeps at most maxOpen sessions, dropping the one idle longest', () => {
    const { up, advance } = clocked(1000, 3);
    const first = up.start(R);
    advance(1);
    const second = up.start(R);
    advance(1);
    const third = up.start(R);
    advance(1);
    up.append(R, first.uuid, bytes(1)); // first is now the most recently used
    const fourth = up.start(R);
    expect(code(up.get(R, second.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
    for (const s of [first, third, fourth]) expect(up.get(R, s.uuid).ok).toBe(true);
  });
});
