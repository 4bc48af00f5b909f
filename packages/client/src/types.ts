/**
 * The types of the verifying download (runtime-neutral): what a transport answers, what a hasher and a sink take,
 * what a download reports. Re-exported by `download.ts` and the package's entries.
 */

export interface RemoteFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * An incremental SHA-256; the Node entry injects node:crypto (in a worker thread for large files), the default is
 * @noble/hashes. A hasher that works elsewhere (another thread) may return a promise from `update` (wait before
 * giving it more: it holds too much) and from `digest`; `dispose` releases it when a download abandons it.
 */
export interface Hasher {
  /** The chunk is lent as to {@link Sink.write}: hash or copy it before returning (or before the promise resolves). */
  update(chunk: Uint8Array): void | Promise<void>;
  /** lowercase hex */
  digest(): string | Promise<string>;
  dispose?(): void;
}
/** A new hasher; `size` is the file's size when known (a factory may pick another thread for large files). */
export type HasherFactory = (size?: number) => Hasher;

/** Where verified-so-far bytes go. `truncate` drops everything (a restart on another source). */
export interface Sink {
  /**
   * The chunk is lent: a transport may reuse its memory once `write` has returned (or its promise resolved) and
   * the next chunk is asked for. A sink that keeps the bytes longer copies them.
   */
  write(chunk: Uint8Array): Promise<void> | void;
  truncate(): Promise<void> | void;
}

export type Outcome = 'verified' | 'mismatch' | 'size' | 'stall' | 'status' | 'error' | 'cut';

export interface Attempt {
  file: string;
  /** health key of the source (the hub's `X-Hub-Source`), or `hub` before one was known */
  source: string;
  url: string;
  /** bytes received in this attempt */
  bytes: number;
  /** where this attempt started (a `Range` offset, 0 for a full download) */
  offset: number;
  outcome: Outcome;
  reason: string;
}

export interface Progress {
  file: string;
  source: string;
  received: number;
  size: number;
  /** a ranged download: bytes received from each source so far (by the hub's health key) */
  sources?: Record<string, number>;
}

/** One byte download's answer, as the client reads it (after redirects). */
export interface ByteResponse {
  status: number;
  headers: { get(name: string): string | null };
  /** the URL the bytes came from, after redirects */
  url: string;
  redirected: boolean;
  /**
   * The hub's `X-Hub-Source` on the redirect that led to the bytes (the source that served them), when the
   * transport saw it (`nodeGetBytes` does; `fetch` follows redirects without showing their headers).
   */
  hubSource?: string;
  /**
   * The `Link` header of that redirect: the hub lists every live source of the file there as `rel="duplicate"`
   * (RFC 6249), which a ranged download fetches from at once.
   */
  hubLinks?: string;
  /** Each chunk is valid until the next one is asked for (`nodeGetBytes` reads into one reused buffer). */
  body: AsyncIterable<Uint8Array>;
  /** stop reading and release the connection */
  cancel(): void;
}

/**
 * How file bytes are fetched: GET `url` with `headers`, following redirects (keeping `Range`), honouring
 * `signal`. The default wraps `fetch`; the Node entry has a faster one on node:http (`nodeGetBytes`).
 */
export type GetBytes = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<ByteResponse>;

export interface ClientOptions {
  /** Hub base URL, e.g. `http://localhost:8080`. */
  hub: string;
  /** for the hub's JSON routes, and for the bytes when `getBytes` is not given */
  fetch?: typeof fetch;
  /**
   * how file bytes are fetched (default: over `fetch`); given without `fetch`, the JSON routes go over it too (so a
   * Node client never loads the runtime's fetch, about 0.1 s of CPU at its start)
   */
  getBytes?: GetBytes;
  hasher?: HasherFactory;
  /** No byte for this long ends an attempt with `stall` (default 30). */
  stallSeconds?: number;
  onAttempt?: (a: Attempt) => void;
  onProgress?: (p: Progress) => void;
  /**
   * A ranged download (a file of at least 16 MiB written through a {@link RangeTarget}) opens up to this many
   * connections to each source at once, like aria2's `-x` (default 8); 1 fetches such a file in one request, as a
   * small one is.
   */
  connections?: number;
}

export interface FileResult {
  file: RemoteFile;
  ok: boolean;
  /** source that delivered the verified bytes (of a ranged download: the one that delivered most of them) */
  source?: string;
  /** a ranged download: the verified bytes each source delivered */
  sources?: Record<string, number>;
  attempts: Attempt[];
}

/**
 * Where a ranged download writes: a temp file written in place (positional writes), hashed in order as its completed
 * prefix grows (`hashTo`; on another thread in Node), renamed to its final path only after the SHA-256 matched.
 */
export interface RangeTarget {
  /** byte intervals `[start, end)` already held from an interrupted run, sorted (their bytes count as received) */
  readonly held: ReadonlyArray<readonly [number, number]>;
  /** The chunk is lent: written (or copied) before the promise resolves. */
  write(offset: number, chunk: Uint8Array): Promise<void> | void;
  /** bytes already written (to compare a source's bytes with another's) */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** bytes `[0, upTo)` are complete: hash them, in order, from where the hash stands */
  hashTo(upTo: number): void;
  /** the SHA-256 (lowercase hex) of the whole file, once `hashTo(size)` was called */
  digest(): Promise<string>;
  /** forget the hash so far: the next `hashTo` hashes from byte 0 again (bytes were rewritten) */
  rehash(): void;
  /** which intervals are complete, kept beside the temp file (written atomically) so a new run continues from them */
  record(done: ReadonlyArray<readonly [number, number]>): Promise<void> | void;
  /** the bytes cannot be trusted: a later run must not resume from them */
  discard(): Promise<void> | void;
  /** `true`: move the verified file to its final path; `false`: close, keeping what may be resumed */
  commit(ok: boolean): Promise<void>;
}
