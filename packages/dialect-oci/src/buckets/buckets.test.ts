import type { HubResponse } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { blobUploadUnknown, chunkOutOfOrder, digestMismatch, sizeInvalid } from './errors.js';
import { bucketOf, bucketRepository, parseChunkRange } from './names.js';

function body(res: HubResponse): { errors: { code: string; message: string }[] } {
  const b = res.body;
  if (typeof b === 'string') return JSON.parse(b);
  if (b instanceof Uint8Array) return JSON.parse(new TextDecoder().decode(b));
  throw new Error('error bodies are whole, never streamed');
}

describe('bucket repositories', () => {
  it('maps hub/buckets/{name} and nothing else', () => {
    expect(bucketOf('hub/buckets/eval-set')).toBe('eval-set');
    expect(bucketRepository('eval-set')).toBe('hub/buckets/eval-set');
    expect(bucketOf('owner/name')).toBeUndefined();
    expect(bucketOf('hub/buckets/a/b')).toBeUndefined();
    expect(bucketOf('hub/buckets/')).toBeUndefined();
    expect(bucketOf('hub/buckets/UPPER')).toBeUndefined();
  });

  it('parses chunk ranges as the distribution spec sends them', () => {
    expect(parseChunkRange('0-1023')).toEqual({ start: 0, end: 1023 });
    expect(parseChunkRange('bytes 10-19')).toEqual({ start: 10, end: 19 });
    expect(parseChunkRange('5-4')).toBeUndefined();
    expect(parseChunkRange('bytes=0-1')).toBeUndefined();
  });
});

describe('bucket push errors', () => {
  it('answer in the OCI shape with the spec codes and statuses', () => {
    expect(body(blobUploadUnknown('hub/buckets/x', 'abc')).errors[0]?.code).toBe('BLOB_UPLOAD_UNKNOWN');
    const r = chunkOutOfOrder(10);
    expect(r.status).toBe(416);
    expect(body(r).errors[0]?.code).toBe('BLOB_UPLOAD_INVALID');
    expect(body(digestMismatch('sha256:aa', 'sha256:bb')).errors[0]?.message).toMatch(/nothing was stored/);
    const s = sizeInvalid('hub/buckets/x', 100);
    expect(s.status).toBe(413);
    expect(body(s).errors[0]?.code).toBe('SIZE_INVALID');
  });
});
