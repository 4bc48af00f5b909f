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
  /** when the session last received a request (ms, injected clock) */
  touched: number;
}

/** An open upload that receives no request for this long is dropped with its bytes (a killed client's push). */
export const UPLOAD_IDLE_SECONDS = 15 * 60;
/** At most this many uploads are open at once; a new one beyond it drops the one idle longest. */
export const MAX_OPEN_UPLOADS = 1000;

export type UploadResult<T> = { ok: true; value: T } | { ok: false; response: HubResponse };

const DIGEST = /^sha256:([0-9a-f]{64})$/;

/**
 * Open uploads, in memory. Bounded three ways, so an abandoned or hostile push cannot grow the process: a session
 * idle for `idleSeconds` is dropped with its bytes (swept on every call); the bytes of every open session of a
 * bucket count against that bucket's size limit together with what it already holds; and at most `maxOpen` sessions
 * are open (a new one beyond that drops the one idle longest).
 */
export class BlobUploads {
  readonly #sessions = new Map<string, Session>();

  constructor(
    /** Bytes a bucket may hold in all; `used(repository)` says how many it holds now. */
    private readonly limit: (repository: string) => number,
    private readonly used: (repository: string) => number,
    private readonly newId: () => string = () => crypto.randomUUID(),
    private readonly now: () => number = Date.now,
    private readonly idleSeconds = UPLOAD_IDLE_SECONDS,
    private readonly maxOpen = MAX_OPEN_UPLOADS,
  ) {}

  /** Open sessions (after dropping the idle ones). */
  get open(): number {
    this.sweep();
    return this.#sessions.size;
  }

  start(repository: string): UploadSession {
    this.sweep();
    if (this.#sessions.size >= this.maxOpen) {
      let idlest: Session | undefined;
      for (const s of this.#sessions.values()) if (!idlest || s.touched < idlest.touched) idlest = s;
      if (idlest) this.#sessions.delete(idlest.uuid);
    }
    const uuid = this.newId();
    this.#sessions.set(uuid, { uuid, repository, received: 0, chunks: [], hash: createSha256(), touched: this.now() });
    return { uuid, repository, received: 0 };
  }

  get(repository: string, uuid: string): UploadResult<UploadSession> {
    const s = this.#live(repository, uuid);
    if (!s) return { ok: false, response: blobUploadUnknown(repository, uuid) };
    return { ok: true, value: { uuid, repository, received: s.received } };
  }

  /** The session, touched, or undefined when it is unknown, another bucket's, or was dropped as idle. */
  #live(repository: string, uuid: string): Session | undefined {
    this.sweep();
    const s = this.#sessions.get(uuid);
    if (!s || s.repository !== repository) return undefined;
    s.touched = this.now();
    return s;
  }

  /** Drop every session idle for longer than `idleSeconds`. */
  private sweep(): void {
    const oldest = this.now() - this.idleSeconds * 1000;
    for (const [uuid, s] of this.#sessions) if (s.touched < oldest) this.#sessions.delete(uuid);
  }

  /** Bytes held by the open sessions of one bucket. */
  private pending(repository: string): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (s.repository === repository) n += s.received;
    return n;
  }

  /** Appends a chunk (PATCH, or the body of the closing PUT). `contentRange` is checked when sent. */
  append(repository: string, uuid: string, bytes: Uint8Array, contentRange?: string): UploadResult<UploadSession> {
    const s = this.#live(repository, uuid);
    if (!s) return { ok: false, response: blobUploadUnknown(repository, uuid) };
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
    // What the bucket holds, plus every open upload to it (this one included), plus these bytes.
    if (this.used(repository) + this.pending(repository) + bytes.byteLength > limit) {
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
    if (!this.#live(repository, uuid)) return false;
    return this.#sessions.delete(uuid);
  }
}
