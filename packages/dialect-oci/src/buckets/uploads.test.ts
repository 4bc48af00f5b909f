import { sha256Hex } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { MemoryUploadSessions } from './upload-store.js';
import { BlobUploads, type BlobUploadsOptions } from './uploads.js';

// SYNTHETIC bytes, generated here.
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const digestOf = (b: Uint8Array) => `sha256:${sha256Hex(b)}`;
const code = (r: { ok: boolean; response?: { body: unknown } }) => (r.ok ? 'ok' : JSON.parse(String(r.response?.body)).errors[0].code);
/** Upload ids in the form `crypto.randomUUID()` makes (any other form is refused). */
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function uploads(limit = 1000, used = 0, more: Partial<BlobUploadsOptions> = {}) {
  let n = 0;
  return new BlobUploads({ limit: () => limit, used: () => used, newId: () => id(++n), ...more });
}

/** The closing PUT, collecting what it hands on. */
async function finish(up: BlobUploads, repo: string, uuid: string, digest: string, last: Uint8Array = new Uint8Array()) {
  let kept: Uint8Array | undefined;
  const r = await up.finish(repo, uuid, digest, last, async (b) => {
    kept = b;
  });
  return { r, kept };
}

describe('blob uploads', () => {
  it('monolithic: the closing PUT carries all bytes and the right digest', async () => {
    const up = uploads();
    const b = bytes(100);
    const s = await up.start('hub/buckets/x');
    const { r, kept } = await finish(up, 'hub/buckets/x', s.uuid, digestOf(b), b);
    expect(r.ok).toBe(true);
    expect(Array.from(kept ?? [])).toEqual(Array.from(b));
    expect(code(await up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('chunked PATCH with Content-Range, in order; an out-of-order chunk is 416 with the Range held', async () => {
    const up = uploads();
    const b = bytes(300);
    const s = await up.start('hub/buckets/x');
    expect((await up.append('hub/buckets/x', s.uuid, b.subarray(0, 100), '0-99')).ok).toBe(true);
    const bad = await up.append('hub/buckets/x', s.uuid, b.subarray(150, 200), '150-199');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.response.status).toBe(416);
      expect(bad.response.headers.range).toBe('0-99');
    }
    expect((await up.append('hub/buckets/x', s.uuid, b.subarray(100, 200), '100-199')).ok).toBe(true);
    const { r, kept } = await finish(up, 'hub/buckets/x', s.uuid, digestOf(b), b.subarray(200));
    expect(r.ok && r.value).toBe(300);
    expect(kept && sha256Hex(kept)).toBe(sha256Hex(b));
  });

  it('bytes that do not match their digest: DIGEST_INVALID, nothing handed on, session gone', async () => {
    const up = uploads();
    const b = bytes(50);
    const s = await up.start('hub/buckets/x');
    const flipped = b.slice();
    flipped[7] = (flipped[7] ?? 0) ^ 1;
    const { r, kept } = await finish(up, 'hub/buckets/x', s.uuid, digestOf(b), flipped);
    expect(code(r)).toBe('DIGEST_INVALID');
    expect(kept).toBeUndefined();
    expect(code(await up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('a closing PUT whose store fails drops the session too (nothing half-kept, the client starts again)', async () => {
    const up = uploads();
    const b = bytes(80);
    const s = await up.start('hub/buckets/x');
    expect((await up.append('hub/buckets/x', s.uuid, b.subarray(0, 40), '0-39')).ok).toBe(true);
    const failing = up.finish('hub/buckets/x', s.uuid, digestOf(b), b.subarray(40), async () => {
      throw new Error('the object store is full');
    });
    await expect(failing).rejects.toThrow('the object store is full');
    expect(code(await up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('past the bucket size limit: 413 SIZE_INVALID and the session dropped', async () => {
    const up = uploads(1000, 950);
    const s = await up.start('hub/buckets/x');
    const r = await up.append('hub/buckets/x', s.uuid, bytes(60));
    expect(code(r)).toBe('SIZE_INVALID');
    if (!r.ok) expect(r.response.status).toBe(413);
    expect(code(await up.get('hub/buckets/x', s.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('an upload of one bucket is unknown in another', async () => {
    const up = uploads();
    const s = await up.start('hub/buckets/x');
    expect(code(await up.append('hub/buckets/y', s.uuid, bytes(1)))).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('an id that is not an upload id is unknown before the store sees it', async () => {
    const store = new MemoryUploadSessions();
    const seen: string[] = [];
    for (const k of ['state', 'tryLock', 'remove', 'touch'] as const) {
      const orig = store[k].bind(store) as (...a: unknown[]) => Promise<unknown>;
      (store as unknown as Record<string, unknown>)[k] = (...a: unknown[]) => {
        seen.push(String(a[0]));
        return orig(...a);
      };
    }
    const up = uploads(1000, 0, { store });
    for (const bad of ['../../etc', '..', 'u1', 'ABCDEF01-0000-4000-8000-000000000001', `${id(1)}/x`, `../${id(1)}`]) {
      expect(code(await up.get('hub/buckets/x', bad))).toBe('BLOB_UPLOAD_UNKNOWN');
      expect(code(await up.append('hub/buckets/x', bad, bytes(1)))).toBe('BLOB_UPLOAD_UNKNOWN');
      expect(code((await finish(up, 'hub/buckets/x', bad, digestOf(bytes(1)), bytes(1))).r)).toBe('BLOB_UPLOAD_UNKNOWN');
      expect(code(await up.cancel('hub/buckets/x', bad))).toBe('BLOB_UPLOAD_UNKNOWN');
    }
    expect(seen).toEqual([]);
  });

  it('a session whose lock another request holds: 416 with the Range recorded, nothing appended', async () => {
    const store = new MemoryUploadSessions();
    const up = uploads(1000, 0, { store });
    const s = await up.start('hub/buckets/x');
    expect((await up.append('hub/buckets/x', s.uuid, bytes(10), '0-9')).ok).toBe(true);
    let inner: Awaited<ReturnType<BlobUploads['append']>> | undefined;
    await store.tryLock(s.uuid, async () => {
      inner = await up.append('hub/buckets/x', s.uuid, bytes(10), '10-19');
    });
    expect(inner?.ok).toBe(false);
    if (inner && !inner.ok) {
      expect(inner.response.status).toBe(416);
      expect(inner.response.headers.range).toBe('0-9');
    }
    const got = await up.get('hub/buckets/x', s.uuid);
    expect(got.ok && got.value.received).toBe(10);
  });
});

describe('open uploads are bounded (an abandoned push does not hold its bytes forever)', () => {
  const R = 'hub/buckets/x';
  function clocked(limit = 1000, maxOpen = 1000) {
    let now = 0;
    const up = uploads(limit, 0, { now: () => now, idleSeconds: 60, maxOpen });
    return { up, advance: (ms: number) => (now += ms) };
  }

  it('drops a session idle for longer than the idle time, with its bytes; a session that keeps receiving stays', async () => {
    const { up, advance } = clocked();
    const idle = await up.start(R);
    const busy = await up.start(R);
    expect((await up.append(R, idle.uuid, bytes(100))).ok).toBe(true);
    for (let i = 0; i < 4; i++) {
      advance(30_000);
      expect((await up.append(R, busy.uuid, bytes(10, i))).ok).toBe(true);
    }
    expect(code(await up.get(R, idle.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
    expect(code(await up.append(R, idle.uuid, bytes(1)))).toBe('BLOB_UPLOAD_UNKNOWN');
    expect((await up.get(R, busy.uuid)).ok).toBe(true);
    expect(await up.openCount()).toBe(1);
    advance(61_000);
    expect(await up.openCount()).toBe(0);
  });

  it('counts the bytes of every open upload of a bucket against its limit', async () => {
    const { up } = clocked(250);
    const a = await up.start(R);
    const b = await up.start(R);
    const other = await up.start('hub/buckets/y');
    expect((await up.append(R, a.uuid, bytes(100))).ok).toBe(true);
    expect((await up.append(R, b.uuid, bytes(100))).ok).toBe(true);
    expect((await up.append('hub/buckets/y', other.uuid, bytes(200))).ok).toBe(true); // another bucket's limit
    const over = await up.append(R, b.uuid, bytes(100));
    expect(code(over)).toBe('SIZE_INVALID');
    expect((await up.get(R, a.uuid)).ok).toBe(true);
  });

  it('counts a chunk still being written (reserved) against the limit', async () => {
    const store = new MemoryUploadSessions();
    const up = uploads(250, 0, { store });
    const a = await up.start(R);
    const b = await up.start(R);
    // a is writing 200 bytes in another process: recorded as reserved, not yet received
    const s = await store.state(a.uuid);
    if (s) await store.record({ ...s, reserved: 200 });
    expect(code(await up.append(R, b.uuid, bytes(100)))).toBe('SIZE_INVALID');
  });

  it('keeps at most maxOpen sessions, dropping the one idle longest', async () => {
    const { up, advance } = clocked(1000, 3);
    const first = await up.start(R);
    advance(1);
    const second = await up.start(R);
    advance(1);
    const third = await up.start(R);
    advance(1);
    await up.append(R, first.uuid, bytes(1)); // first is now the most recently used
    const fourth = await up.start(R);
    expect(code(await up.get(R, second.uuid))).toBe('BLOB_UPLOAD_UNKNOWN');
    for (const s of [first, third, fourth]) expect((await up.get(R, s.uuid)).ok).toBe(true);
  });
});
