/**
 * Where the open blob uploads of bucket pushes are kept (docs/decisions/spaces-and-buckets.md "Upload sessions
 * shared by every process"). A push is several requests (POST, PATCH chunks, PUT ?digest=) that a load balancer or
 * node:cluster may hand to different processes, so the sessions live where every process sharing the data folder
 * sees them: node-server keeps them in `DIR/uploads/` (apps/node-server/src/bucket-uploads.ts); the memory store
 * below serves tests and a single process (the edge accepts no bucket writes).
 *
 * The store only keeps state; the rules (order, limits, digests) are `BlobUploads`'. Every write of one session's
 * state or bytes happens while holding that session's lock (`tryLock(uuid)`), and a reservation against a bucket's
 * limit while holding the bucket's lock too (`withLock('bucket-NAME')`, always taken inside a session's lock).
 */
export interface UploadState {
  uuid: string;
  /** `hub/buckets/{name}` */
  repository: string;
  /** Bytes received and recorded (a write not yet recorded does not count: the next write starts here). */
  received: number;
  /** While a chunk is being written: `received` plus its length, counted against the bucket's limit. Else 0. */
  reserved: number;
  /** When the session last received a request (ms). */
  touched: number;
}

/** Another request holds the session's lock. */
export const BUSY = Symbol('busy');

export interface UploadSessionStore {
  /** A new session (its uuid is new: created by the caller). */
  create(state: UploadState): Promise<void>;
  /** The session's recorded state, or undefined when there is none. */
  state(uuid: string): Promise<UploadState | undefined>;
  /** Every open session (for the sweep, the open-session bound and the bytes pending per bucket). */
  list(): Promise<UploadState[]>;
  /** Replace the recorded state whole, atomically (`touched` included). Only under the session's lock. False when the session is gone. */
  record(state: UploadState): Promise<boolean>;
  /** Mark a request on the session now, without changing what it recorded. */
  touch(uuid: string, now: number): Promise<void>;
  /**
   * Write `bytes` at byte `at` (the recorded length), dropping anything written past it (a write that was never
   * recorded), durably. Under the session's lock. False when the session is gone.
   */
  write(uuid: string, at: number, bytes: Uint8Array): Promise<boolean>;
  /** The first `length` bytes held, or undefined when fewer are there. */
  read(uuid: string, length: number): Promise<Uint8Array | undefined>;
  /** Drop the session with its bytes (nothing when it is gone already). */
  remove(uuid: string): Promise<void>;
  /** Run `fn` holding the lock `name` against every process sharing the store, or answer BUSY when another holds it. */
  tryLock<T>(name: string, fn: () => Promise<T>): Promise<T | typeof BUSY>;
  /** Run `fn` holding the lock `name`, waiting for it (held briefly by the others). */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * The form of an upload id: a version 4 UUID in lower case, as `crypto.randomUUID()` makes them. Anything else the
 * client sends as an id is unknown before any store sees it, so nothing the client sends builds a path.
 */
export const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function isUploadId(value: string): boolean {
  return UPLOAD_ID.test(value);
}

/** Sessions in this process's memory: for tests and a single process. */
export class MemoryUploadSessions implements UploadSessionStore {
  readonly #states = new Map<string, UploadState>();
  readonly #bytes = new Map<string, Uint8Array>();
  readonly #locks = new Set<string>();
  readonly #waiting = new Map<string, Array<() => void>>();

  async create(state: UploadState): Promise<void> {
    this.#states.set(state.uuid, { ...state });
    this.#bytes.set(state.uuid, new Uint8Array());
  }
  async state(uuid: string): Promise<UploadState | undefined> {
    const s = this.#states.get(uuid);
    return s ? { ...s } : undefined;
  }
  async list(): Promise<UploadState[]> {
    return [...this.#states.values()].map((s) => ({ ...s }));
  }
  async record(state: UploadState): Promise<boolean> {
    if (!this.#states.has(state.uuid)) return false;
    this.#states.set(state.uuid, { ...state });
    return true;
  }
  async touch(uuid: string, now: number): Promise<void> {
    const s = this.#states.get(uuid);
    if (s) s.touched = now;
  }
  async write(uuid: string, at: number, bytes: Uint8Array): Promise<boolean> {
    const held = this.#bytes.get(uuid);
    if (!held) return false;
    const next = new Uint8Array(at + bytes.byteLength);
    next.set(held.subarray(0, at));
    next.set(bytes, at);
    this.#bytes.set(uuid, next);
    return true;
  }
  async read(uuid: string, length: number): Promise<Uint8Array | undefined> {
    const held = this.#bytes.get(uuid);
    return held && held.byteLength >= length ? held.slice(0, length) : undefined;
  }
  async remove(uuid: string): Promise<void> {
    this.#states.delete(uuid);
    this.#bytes.delete(uuid);
  }
  async tryLock<T>(name: string, fn: () => Promise<T>): Promise<T | typeof BUSY> {
    if (this.#locks.has(name)) return BUSY;
    return this.#hold(name, fn);
  }
  async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    while (this.#locks.has(name)) {
      await new Promise<void>((resolve) => {
        const list = this.#waiting.get(name) ?? [];
        list.push(resolve);
        this.#waiting.set(name, list);
      });
    }
    return this.#hold(name, fn);
  }
  async #hold<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.#locks.add(name);
    try {
      return await fn();
    } finally {
      this.#locks.delete(name);
      const next = this.#waiting.get(name)?.shift();
      if (next) next();
      else this.#waiting.delete(name);
    }
  }
}
