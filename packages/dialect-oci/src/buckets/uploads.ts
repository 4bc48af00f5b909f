import { type HubResponse, sha256Hex } from '@hub/core-index';
import { digestInvalid } from '../errors.js';
import { blobUploadInvalid, blobUploadUnknown, chunkOutOfOrder, digestMismatch, sizeInvalid, uploadBusy } from './errors.js';
import { parseChunkRange } from './names.js';
import { BUSY, isUploadId, MemoryUploadSessions, type UploadSessionStore, type UploadState } from './upload-store.js';

/**
 * Blob upload sessions of a bucket push (OCI distribution push flow: POST, PATCH chunks, PUT with ?digest=).
 *
 * Nothing half-written: the bytes of an open upload live only in the session store (node-server: `DIR/uploads/`,
 * seen by every process sharing the data folder), and a chunk counts as received only once it is written, flushed and
 * recorded; `finish` hands the bytes on only after their SHA-256 matched the digest the client named and the bucket's
 * size limit held. Only then does the caller store them in the object store. A session that fails is dropped whole.
 */
export interface UploadSession {
  readonly uuid: string;
  readonly repository: string;
  /** Bytes received so far. */
  readonly received: number;
}

/** An open upload that receives no request for this long is dropped with its bytes (a killed client's push). */
export const UPLOAD_IDLE_SECONDS = 15 * 60;
/** At most this many uploads are open at once; a new one beyond it drops the one idle longest. */
export const MAX_OPEN_UPLOADS = 1000;

export type UploadResult<T> = { ok: true; value: T } | { ok: false; response: HubResponse };

const DIGEST = /^sha256:([0-9a-f]{64})$/;
const PREFIX = 'hub/buckets/';

/** The lock a bucket's reservations are made under (the bucket name passed the OCI name rule at the route). */
const bucketLock = (repository: string) => `bucket-${repository.startsWith(PREFIX) ? repository.slice(PREFIX.length) : repository}`;

/**
 * Open uploads, kept in an {@link UploadSessionStore}. Bounded three ways, so an abandoned or hostile push cannot grow
 * the data folder: a session idle for `idleSeconds` is dropped with its bytes; the bytes of every open session of a
 * bucket (in any process) count against that bucket's size limit together with what it already holds; and at most
 * `maxOpen` sessions are open (a new one beyond that drops the one idle longest).
 *
 * Every change of one session runs under its lock; a request that finds the lock held by another answers 416 with the
 * Range recorded (two PATCHes are never both accepted at one offset). A chunk is reserved against the bucket's limit
 * under the bucket's lock before it is written, so two processes cannot each fill the bucket.
 */
export interface BlobUploadsOptions {
  /** Bytes a bucket may hold in all. */
  limit: (repository: string) => number;
  /** Bytes a bucket holds now. */
  used: (repository: string) => number | Promise<number>;
  /** Where sessions live (default: this process's memory). */
  store?: UploadSessionStore;
  newId?: () => string;
  now?: () => number;
  idleSeconds?: number;
  maxOpen?: number;
}

export class BlobUploads {
  private readonly limit: (repository: string) => number;
  private readonly used: (repository: string) => number | Promise<number>;
  private readonly store: UploadSessionStore;
  private readonly newId: () => string;
  private readonly now: () => number;
  private readonly idleSeconds: number;
  private readonly maxOpen: number;

  constructor(options: BlobUploadsOptions) {
    this.limit = options.limit;
    this.used = options.used;
    this.store = options.store ?? new MemoryUploadSessions();
    this.newId = options.newId ?? (() => crypto.randomUUID());
    this.now = options.now ?? Date.now;
    this.idleSeconds = options.idleSeconds ?? UPLOAD_IDLE_SECONDS;
    this.maxOpen = options.maxOpen ?? MAX_OPEN_UPLOADS;
  }

  /** Open sessions (after dropping the idle ones). */
  async openCount(): Promise<number> {
    return (await this.#sweep()).length;
  }

  async start(repository: string): Promise<UploadSession> {
    const live = await this.#sweep();
    live.sort((a, b) => a.touched - b.touched);
    for (let i = 0; i <= live.length - this.maxOpen; i++) await this.store.remove((live[i] as UploadState).uuid);
    const uuid = this.newId();
    await this.store.create({ uuid, repository, received: 0, reserved: 0, touched: this.now() });
    return { uuid, repository, received: 0 };
  }

  async get(repository: string, uuid: string): Promise<UploadResult<UploadSession>> {
    const s = await this.#live(repository, uuid);
    if (!s) return { ok: false, response: blobUploadUnknown(repository, uuid) };
    return { ok: true, value: { uuid, repository, received: s.received } };
  }

  /** Appends a chunk (PATCH). `contentRange` is checked when sent. */
  append(repository: string, uuid: string, bytes: Uint8Array, contentRange?: string): Promise<UploadResult<UploadSession>> {
    return this.#locked(repository, uuid, async (s) => {
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
      return this.#add(s, bytes);
    });
  }

  /**
   * Closes an upload (PUT ?digest=): appends the last bytes, hashes every byte held, and when they match the digest
   * hands them to `keep` (which stores them) before the session is dropped, so the bytes count against the bucket's
   * limit throughout. The session is gone afterwards whatever the outcome; on any failure nothing is handed on.
   */
  finish(
    repository: string,
    uuid: string,
    digest: string,
    last: Uint8Array,
    keep: (bytes: Uint8Array) => Promise<void>,
  ): Promise<UploadResult<number>> {
    return this.#locked(repository, uuid, async (s) => {
      const m = DIGEST.exec(digest);
      if (!m) {
        await this.store.remove(uuid);
        return { ok: false, response: digestInvalid(digest) };
      }
      let bytes: Uint8Array | undefined;
      if (s.received === 0) {
        // Everything came with this request (a monolithic upload): hashed as it is, never written here.
        if (await this.#over(s, last.byteLength)) return this.#drop(s, sizeInvalid(repository, this.limit(repository)));
        bytes = last;
      } else {
        const added = await this.#add(s, last);
        if (!added.ok) return added;
        bytes = await this.store.read(uuid, added.value.received);
        if (!bytes) return this.#drop(s, blobUploadUnknown(repository, uuid));
      }
      const actual = sha256Hex(bytes);
      if (actual !== m[1]) return this.#drop(s, digestMismatch(digest, `sha256:${actual}`));
      try {
        await keep(bytes);
      } finally {
        // dropped after the store holds the bytes (never counted zero times), and dropped too when storing failed
        await this.store.remove(uuid);
      }
      return { ok: true, value: bytes.byteLength };
    });
  }

  cancel(repository: string, uuid: string): Promise<UploadResult<true>> {
    return this.#locked(repository, uuid, async () => {
      await this.store.remove(uuid);
      return { ok: true, value: true };
    });
  }

  /** Run `fn` on the live session holding its lock; unknown or busy answered here. */
  async #locked<T>(repository: string, uuid: string, fn: (s: UploadState) => Promise<UploadResult<T>>): Promise<UploadResult<T>> {
    // Checked before any store sees it: the id names a folder in node-server's store.
    if (!isUploadId(uuid)) return { ok: false, response: blobUploadUnknown(repository, uuid) };
    const out = await this.store.tryLock(uuid, async (): Promise<UploadResult<T>> => {
      const s = await this.#live(repository, uuid);
      if (!s) return { ok: false, response: blobUploadUnknown(repository, uuid) };
      return fn(s);
    });
    if (out !== BUSY) return out;
    const s = await this.#live(repository, uuid);
    return { ok: false, response: s ? uploadBusy(s.received) : blobUploadUnknown(repository, uuid) };
  }

  /** The session, touched, or undefined when it is unknown, another bucket's, or idle too long (then dropped). */
  async #live(repository: string, uuid: string): Promise<UploadState | undefined> {
    if (!isUploadId(uuid)) return undefined;
    const s = await this.store.state(uuid);
    if (!s || s.repository !== repository) return undefined;
    const now = this.now();
    if (s.touched < now - this.idleSeconds * 1000) {
      await this.store.remove(uuid);
      return undefined;
    }
    await this.store.touch(uuid, now);
    return { ...s, touched: now };
  }

  /** Drop every session idle for longer than `idleSeconds`; the live ones. */
  async #sweep(): Promise<UploadState[]> {
    const oldest = this.now() - this.idleSeconds * 1000;
    const live: UploadState[] = [];
    for (const s of await this.store.list()) {
      if (s.touched < oldest) await this.store.remove(s.uuid);
      else live.push(s);
    }
    return live;
  }

  /**
   * Reserve `n` more bytes for session `s` against its bucket's limit, under the bucket's lock: what the bucket holds,
   * plus every open upload to it in any process (received, or reserved while a chunk is written), plus these bytes.
   * True when that passes the limit (nothing reserved then).
   */
  #over(s: UploadState, n: number): Promise<boolean> {
    return this.store.withLock(bucketLock(s.repository), async () => {
      let pending = 0;
      for (const o of await this.#sweep())
        if (o.repository === s.repository) pending += o.uuid === s.uuid ? o.received : Math.max(o.received, o.reserved);
      if ((await this.used(s.repository)) + pending + n > this.limit(s.repository)) return true;
      if (n > 0) await this.store.record({ ...s, reserved: s.received + n, touched: this.now() });
      return false;
    });
  }

  /** Reserve, write at the recorded length, then record the new length: a chunk counts only once it is all on disk. */
  async #add(s: UploadState, bytes: Uint8Array): Promise<UploadResult<UploadSession>> {
    const session = { uuid: s.uuid, repository: s.repository };
    if (!bytes.byteLength) return { ok: true, value: { ...session, received: s.received } };
    if (await this.#over(s, bytes.byteLength)) return this.#drop(s, sizeInvalid(s.repository, this.limit(s.repository)));
    const received = s.received + bytes.byteLength;
    if (
      !(await this.store.write(s.uuid, s.received, bytes)) ||
      !(await this.store.record({ ...s, received, reserved: 0, touched: this.now() }))
    )
      return { ok: false, response: blobUploadUnknown(s.repository, s.uuid) };
    return { ok: true, value: { ...session, received } };
  }

  async #drop<T>(s: UploadState, response: HubResponse): Promise<UploadResult<T>> {
    await this.store.remove(s.uuid);
    return { ok: false, response };
  }
}
