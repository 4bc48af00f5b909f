/**
 * The verifying download (design section 9.3), the part of @hub/client that `hub get` loads: runtime-neutral
 * (`fetch` only), and nothing that loads a schema library (core-index's dependency-free `light` entry only).
 * The expected SHA-256 and size of every file come from the hub's tree, never from a source; the bytes
 * stream from the source the hub chooses and are hashed while they arrive. A wrong hash, a wrong size,
 * a stall or an error status moves the download to the next live source through `/via/{source}/…`.
 */
import { boundedAll } from '@hub/core-index/light';
import { DEFAULT_CONNECTIONS, downloadRanged, RANGED_MIN_BYTES } from './ranged.js';
import { HubAnswerError, namedFailure } from './reach.js';
import type {
  Attempt,
  ByteResponse,
  ClientOptions,
  FileResult,
  GetBytes,
  Hasher,
  Outcome,
  RangeTarget,
  RemoteFile,
  Sink,
} from './types.js';

export type {
  Attempt,
  ByteResponse,
  ClientOptions,
  FileResult,
  GetBytes,
  Hasher,
  HasherFactory,
  Outcome,
  Progress,
  RangeTarget,
  RemoteFile,
  Sink,
} from './types.js';

/** {@link GetBytes} over `fetch` (browsers, Workers, Node). */
export function fetchGetBytes(f: typeof fetch = fetch): GetBytes {
  return async (url, init) => {
    const r = await f(url, { headers: init.headers, signal: init.signal, redirect: 'follow' });
    const body = r.body;
    return {
      status: r.status,
      headers: r.headers,
      url: r.url,
      redirected: r.redirected,
      body: {
        async *[Symbol.asyncIterator]() {
          if (!body) return;
          const reader = body.getReader();
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              yield value;
            }
          } finally {
            reader.releaseLock();
          }
        },
      },
      cancel: () => {
        body?.cancel().catch(() => {});
      },
    };
  };
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');
const enc = (path: string) => path.split('/').map(encodeURIComponent).join('/');
const resolveTail = (id: string, revision: string, file: RemoteFile) => `${id}/resolve/${encodeURIComponent(revision)}/${enc(file.path)}`;

/** Split `owner/name[:QUANT]`. */
export function parseRef(ref: string): { id: string; quant?: string } {
  const m = /^([^/:\s]+\/[^/:\s]+)(?::([A-Za-z0-9_]+))?$/.exec(ref);
  if (!m?.[1]) throw new Error(`not a model reference: ${ref} (expected owner/name or owner/name:QUANT)`);
  return m[2] ? { id: m[1], quant: m[2].toUpperCase() } : { id: m[1] };
}

/** A JSON route of the hub: over `getBytes` when it is given without `fetch`, else over `fetch`; a failure names `url`. */
async function json<T>(opts: ClientOptions, url: string): Promise<T> {
  try {
    return await jsonOnce<T>(opts, url);
  } catch (e) {
    throw namedFailure(url, e);
  }
}

async function jsonOnce<T>(opts: ClientOptions, url: string): Promise<T> {
  const headers = { accept: 'application/json' };
  if (opts.getBytes && !opts.fetch) {
    const r = await opts.getBytes(url, { headers, signal: AbortSignal.timeout(JSON_TIMEOUT_MS) });
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const c of r.body) {
      size += c.byteLength;
      if (size > JSON_LIMIT_BYTES) {
        r.cancel();
        throw new Error(`${url}: the answer is larger than ${JSON_LIMIT_BYTES} bytes`);
      }
      // chunks are lent: copied
      parts.push(c.slice());
    }
    const text = new TextDecoder().decode(concat(parts, size));
    if (r.status < 200 || r.status > 299) throw new HubAnswerError(url, r.status, text);
    return JSON.parse(text) as T;
  }
  const r = await (opts.fetch ?? fetch)(url, { headers });
  if (!r.ok) throw new HubAnswerError(url, r.status, await r.text().catch(() => ''));
  return (await r.json()) as T;
}

/** A JSON answer over `getBytes` may take this long. */
const JSON_TIMEOUT_MS = 60_000;
/** and be this large (a tree of many thousand files fits) */
const JSON_LIMIT_BYTES = 256 << 20;

function concat(parts: Uint8Array[], size = parts.reduce((n, p) => n + p.byteLength, 0)): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The commit the hub indexes for a model (`sha` of the model info). */
export async function modelRevision(opts: ClientOptions, id: string): Promise<string> {
  const info = await json<{ sha?: string }>(opts, `${trimSlash(opts.hub)}/api/models/${id}`);
  if (!info.sha) throw new Error(`${id}: the hub gave no revision`);
  return info.sha;
}

/** Every file of a model at a revision, with SHA-256 and size, from the tree API. */
export async function listFiles(opts: ClientOptions, id: string, revision = 'main'): Promise<RemoteFile[]> {
  const url = `${trimSlash(opts.hub)}/api/models/${id}/tree/${encodeURIComponent(revision)}?recursive=true`;
  const rows = await json<Array<{ type: string; path: string; size: number; oid: string; lfs?: { oid: string } }>>(opts, url);
  return rows.filter((r) => r.type === 'file').map((r) => ({ path: r.path, size: r.size, sha256: (r.lfs?.oid ?? r.oid).toLowerCase() }));
}

/** Live sources in the hub's preference order (`/api/hub/health`). */
export async function liveSources(opts: ClientOptions): Promise<string[]> {
  const h = await json<{ order: string[]; sources: Record<string, { ok: boolean }> }>(opts, `${trimSlash(opts.hub)}/api/hub/health`);
  return h.order.filter((s) => h.sources[s]?.ok);
}

class AttemptEnd extends Error {
  constructor(
    readonly outcome: Outcome,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Download one file into `sink`, verifying size and SHA-256. The first attempt asks the hub
 * (`/{id}/resolve/{rev}/{path}`, its own choice); after a failure the next live source not yet tried is
 * named with `/via/{source}/`. A cut connection is resumed with `Range` on the next source when the
 * bytes so far are intact (size ok, source holds the same file by the hub's index); a hash mismatch
 * restarts from zero. With `resume`, the sink already holds `resume.offset` bytes (fed to `resume.hasher`): the first
 * attempt asks for the rest with `Range`.
 */
export async function downloadFile(
  opts: ClientOptions,
  id: string,
  revision: string,
  file: RemoteFile,
  sink: Sink,
  sources?: string[],
  resume?: { offset: number; hasher: Hasher },
): Promise<FileResult> {
  const getBytes = opts.getBytes ?? fetchGetBytes(opts.fetch ?? fetch);
  const hub = trimSlash(opts.hub);
  const order = sources ?? (await liveSources(opts));
  const stallMs = (opts.stallSeconds ?? 30) * 1000;
  // the default (@noble/hashes) is imported only when no hasher is given: `hub get` never loads it
  const newHasher = opts.hasher ?? (await import('./noble.js')).nobleHasher;
  const attempts: Attempt[] = [];
  const failed = new Set<string>();
  // a resumed download (a kept partial file, its bytes already fed to `resume.hasher`) starts with `Range`
  let hasher = resume && resume.offset > 0 ? resume.hasher : newHasher(file.size);
  let received = resume && resume.offset > 0 ? resume.offset : 0;
  const restart = async () => {
    await sink.truncate();
    hasher.dispose?.();
    hasher = newHasher(file.size);
    received = 0;
  };
  const tail = resolveTail(id, revision, file);
  // each attempt names a live source in the hub's order (the order the hub itself chooses by); with no
  // live source listed, the hub's own choice is asked once
  const plan: Array<string | undefined> = order.length > 0 ? [...order] : [undefined];
  const cuts = new Map<string, number>();
  while (plan.length > 0) {
    const via = plan.shift();
    if (via && failed.has(via)) continue;
    const url = via ? `${hub}/via/${encodeURIComponent(via)}/${tail}` : `${hub}/${tail}`;
    const offset = received;
    let source = via ?? 'hub';
    let got = 0;
    const report = (outcome: Outcome, reason: string) => {
      const a: Attempt = { file: file.path, source, url, bytes: got, offset, outcome, reason };
      attempts.push(a);
      opts.onAttempt?.(a);
    };
    const ctrl = new AbortController();
    // one timer per attempt checks the time of the last byte (re-arming a timer per chunk costs throughput)
    let lastByte = Date.now();
    const timer = setInterval(
      () => {
        if (Date.now() - lastByte >= stallMs) ctrl.abort(new AttemptEnd('stall', `no byte for ${stallMs / 1000} s`));
      },
      Math.max(10, Math.min(1000, stallMs / 5)),
    );
    try {
      const headers: Record<string, string> = {};
      if (offset > 0) headers.range = `bytes=${offset}-`;
      const r = await getBytes(url, { headers, signal: ctrl.signal });
      // The source that actually served the bytes: the hub's X-Hub-Source on its redirect (also under /via/, where
      // the hub may have chosen another holder), else what the final answer says.
      source = r.hubSource ?? (via ? undefined : (r.headers.get('x-hub-source') ?? sourceFromRedirect(r))) ?? source;
      if (offset > 0 && r.status === 200) {
        // the source ignored Range: restart from zero
        await restart();
      } else if (!(r.status === 200 || (offset > 0 && r.status === 206))) {
        r.cancel();
        throw new AttemptEnd('status', `HTTP ${r.status}`);
      }
      const progress = opts.onProgress;
      for await (const value of r.body) {
        lastByte = Date.now();
        if (received + value.byteLength > file.size) {
          r.cancel();
          throw new AttemptEnd('size', `more than the ${file.size} bytes the hub lists`);
        }
        // Hash and write overlap: a hasher on another thread takes the chunk and returns at once (a promise only
        // when it holds too much), the sink queues its writes; the next chunk is read meanwhile.
        const h = hasher.update(value);
        const w = sink.write(value);
        if (h) await h;
        if (w) await w;
        received += value.byteLength;
        got += value.byteLength;
        progress?.({ file: file.path, source, received, size: file.size });
      }
      clearInterval(timer);
      if (received < file.size) throw new AttemptEnd('cut', `connection ended at ${received} of ${file.size} bytes`);
      const actual = await hasher.digest();
      if (actual !== file.sha256) {
        throw new AttemptEnd('mismatch', `sha256 ${actual}, expected ${file.sha256}`);
      }
      report('verified', `sha256 ${actual}`);
      return { file, ok: true, source, attempts };
    } catch (e) {
      clearInterval(timer);
      const end =
        e instanceof AttemptEnd
          ? e
          : ctrl.signal.reason instanceof AttemptEnd
            ? ctrl.signal.reason
            : new AttemptEnd(received > offset ? 'cut' : 'error', e instanceof Error ? e.message : String(e));
      report(end.outcome, end.message);
      const n = (cuts.get(source) ?? 0) + 1;
      cuts.set(source, n);
      // a cut connection is resumed on the same source first (a few times), then elsewhere
      if (end.outcome === 'cut' && source !== 'hub' && n <= 3) plan.unshift(source);
      else failed.add(source);
      if (end.outcome === 'mismatch' || end.outcome === 'size') {
        // the bytes cannot be trusted: start over
        await restart();
      }
    }
  }
  hasher.dispose?.();
  return { file, ok: false, attempts };
}

function sourceFromRedirect(r: ByteResponse): string | undefined {
  return r.redirected ? new URL(r.url).host : undefined;
}

/**
 * Download many files, `parallel` at a time. With `targetFor`, a file of at least {@link RANGED_MIN_BYTES} is fetched
 * in ranges over several connections and every live source the hub lists (`downloadRanged`), unless
 * `opts.connections` is 1; a file no source sent a byte of in ranges (a source without `Range`, a hub without the
 * `Link` list still gives one) is then fetched in one request as a smaller one is.
 */
export async function downloadAll(
  opts: ClientOptions,
  id: string,
  revision: string,
  files: RemoteFile[],
  sinkFor: (f: RemoteFile) => Promise<Sink & { commit(ok: boolean): Promise<void> | void }>,
  parallel = 4,
  targetFor?: (f: RemoteFile) => Promise<RangeTarget>,
): Promise<FileResult[]> {
  const sources = await liveSources(opts);
  const ranged = targetFor && (opts.connections ?? DEFAULT_CONNECTIONS) > 1 ? targetFor : undefined;
  // the one bounded pool of core-index: a thrown error (not a failed download) stops new files
  return boundedAll(files, parallel, async (file) => {
    let before: Attempt[] = [];
    if (ranged && file.size >= RANGED_MIN_BYTES) {
      const target = await ranged(file);
      let res: FileResult;
      try {
        const getBytes = opts.getBytes ?? fetchGetBytes(opts.fetch ?? fetch);
        res = await downloadRanged(opts, getBytes, `${trimSlash(opts.hub)}/${resolveTail(id, revision, file)}`, file, target);
      } catch (e) {
        await target.commit(false);
        throw e;
      }
      if (res.ok || target.held.length > 0 || res.attempts.some((a) => a.bytes > 0)) {
        await target.commit(res.ok);
        return res;
      }
      await target.discard();
      before = res.attempts;
    }
    const sink = await sinkFor(file);
    let res: FileResult;
    try {
      res = await downloadFile(opts, id, revision, file, sink, sources);
    } catch (e) {
      await sink.commit(false);
      throw e;
    }
    await sink.commit(res.ok);
    return before.length > 0 ? { ...res, attempts: [...before, ...res.attempts] } : res;
  });
}

/**
 * A sink that keeps the bytes in memory (browsers, Workers).
 * @public (tests/client-runtimes.test.ts calls it in a browser and a Worker, from code knip does not read)
 */
export function memorySink(): Sink & { bytes(): Uint8Array; commit(ok: boolean): void } {
  let parts: Uint8Array[] = [];
  return {
    write: (c) => {
      parts.push(c.slice());
    },
    truncate: () => {
      parts = [];
    },
    commit: () => {},
    bytes: () => concat(parts),
  };
}
