import { createSha256, type HubResponse } from '@hub/core-index';
import { digestInvalid } from '../errors.js';
import { blobUploadInvalid, blobUploadUnknown, chunkOutOfOrder, digestMismatch, sizeInvalid } from './errors.js';
import { parseChunkRange } from './names.js';

/**
 * Blob upload sessions of a bucket push (OCI distribution push flow: POST, PATCH chunks, PUT with ?digest=).
 *
 * Nothing half-written: the bytes of an open upload live only in the session (a temp area), hashed as they
 * arrive; `finish` hands back the bytes only after their SHA-256 matched the digest the client named and the
 * bucket's size limit held. Only then does the caller store them in the object store. A session that fails
 * is dropped whole.
 */
export interface UploadSession {
  readonly uuid: string;
  readonly repository: string;
  /** Bytes received so far. */
  readonly received: number;
}

interface Session {
  uuid: string;
  repository: string;
  received: number;
  chunks: Uint8Array[];
  hash: ReturnType<typeof createSha256>;
}

export type UploadResult<T> = { ok: true; value: T } | { ok: false; response: HubResponse };

const DIGEST = /^sha256:([0-9a-f]{64})$/;

export class BlobUploads {
  readonly #sessions = new Map<string, Session>();

  constructor(
    /** Bytes a bucket may hold in all; `used(repository)` says how many it holds now. */
    private readonly limit: (repository: string) => number,
    private readonly used: (repository: string) => number,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {}

  start(repository: string): UploadSession {
    const uuid = this.newId();
    this.#sessions.set(uuid, { uuid, repository, received: 0, chunks: [], hash: createSha256() });
    return { uuid, repository, received: 0 };
  }

  get(repository: string, uuid: string): UploadResult<UploadSession> {
    const s = this.#sessions.get(uuid);
    if (!s || s.repository !== repository) return { ok: false, response: blobUploadUnknown(repository, uuid) };
    return { ok: true, value: { uuid, repository, received: s.received } };
  }

  /** Appends a chunk (PATCH, or the body of the closing PUT). `contentRange` is checked when sent. */
  append(repository: string, uuid: string, bytes: Uint8Array, contentRange?: string): UploadResult<UploadSession> {
    const s = this.#sessions.get(uuid);
    if (!s || s.repository !== repository) return { ok: false, response: blobUploadUnknown(repository, uuid) };
    if (contentRange !== undefined) {
      const range = parseChunkRange(contentRange);
      if (!range)
        return { ok: false, response: blobUploadInvalid(`Content-Range ${JSON.stringify(contentRange.slice(0, 60))} is not START-END.`) };
      if (range.start !== s.received) return { ok: false, response: chunkOutOfOrder(s.received) };
      if (range.end - range.start + 1 !== bytes.byteLength)
        return {
          ok: false,
          response: blobUploadInvalid(`Content-Range names ${range.end - range.start + 1} bytes but the body holds ${bytes.byteLength}.`),
        };
    }
    const limit = this.limit(repository);
    if (this.used(repository) + s.received + bytes.byteLength > limit) {
      this.#sessions.delete(uuid);
      return { ok: false, response: sizeInvalid(repository, limit) };
    }
    if (bytes.byteLength) {
      const copy = bytes.slice();
      s.chunks.push(copy);
      s.hash.update(copy);
      s.received += copy.byteLength;
    }
    return { ok: true, value: { uuid, repository, received: s.received } };
  }

  /**
   * Closes an upload (PUT ?digest=): appends the last bytes, checks the digest, and returns the verified
   * bytes. The session is gone afterwards whatever the outcome; on any failure nothing is handed on.
   */
  finish(repository: string, uuid: string, digest: string, last: Uint8Array = new Uint8Array()): UploadResult<Uint8Array> {
    const m = DIGEST.exec(digest);
    if (!m) {
      this.#sessions.delete(uuid);
      return { ok: false, response: digestInvalid(digest) };
    }
    const appended = this.append(repository, uuid, last);
    if (!appended.ok) return appended;
    const s = this.#sessions.get(uuid) as Session;
    this.#sessions.delete(uuid);
    const actual = s.hash.hex();
    if (actual !== m[1]) return { ok: false, response: digestMismatch(digest, `sha256:${actual}`) };
    const out = new Uint8Array(s.received);
    let at = 0;
    for (const c of s.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return { ok: true, value: out };
  }

  cancel(repository: string, uuid: string): boolean {
    const s = this.#sessions.get(uuid);
    if (!s || s.repository !== repository) return false;
    return this.#sessions.delete(uuid);
  }
}
