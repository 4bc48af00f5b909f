// The ranged download (issue 42) over an injected transport and an in-memory file: a SYNTHETIC source limited per
// connection (256 KiB every 12 ms on each), and how many requests the download makes depending on how busy its
// thread says it is (`ClientOptions.loopBusy`).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { downloadRanged } from './ranged.js';
import type { ByteResponse, ClientOptions, GetBytes, RangeTarget } from './types.js';

const MiB = 1 << 20;
// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const SIZE = 16 * MiB;
const DATA = new Uint8Array(SIZE);
for (let i = 0; i < SIZE; i += 4096) DATA.fill((i / 4096) & 0xff, i, i + 4096);
const SHA = createHash('sha256').update(DATA).digest('hex');
const CHUNK = 256 * 1024;

/** A source that honours Range, sending CHUNK bytes every 12 ms on each connection; logs each Range. */
function limitedSource(log: string[]): GetBytes {
  return async (_url, init) => {
    const range = init.headers.range ?? '';
    log.push(range);
    const m = /^bytes=(\d+)-(\d+)$/.exec(range);
    const start = Number(m?.[1] ?? 0);
    const end = Math.min(Number(m?.[2] ?? SIZE - 1), SIZE - 1);
    let stopped = false;
    const res: ByteResponse = {
      status: 206,
      headers: { get: (n) => (n === 'content-range' ? `bytes ${start}-${end}/${SIZE}` : null) },
      url: 'http://source.invalid/file',
      redirected: true,
      hubSource: 'limited',
      body: {
        async *[Symbol.asyncIterator]() {
          for (let at = start; at <= end && !stopped && !init.signal.aborted; at += CHUNK) {
            await new Promise((r) => setTimeout(r, 12));
            yield DATA.subarray(at, Math.min(end + 1, at + CHUNK));
          }
        },
      },
      cancel: () => {
        stopped = true;
      },
    };
    return res;
  };
}

/** The file in memory; its digest hashes what was written. */
function memoryTarget(): RangeTarget & { bytes: Uint8Array } {
  const bytes = new Uint8Array(SIZE);
  return {
    bytes,
    held: [],
    write: (at, chunk) => void bytes.set(chunk, at),
    read: async (at, n) => bytes.slice(at, at + n),
    hashTo: () => {},
    digest: async () => createHash('sha256').update(bytes).digest('hex'),
    rehash: () => {},
    record: () => {},
    discard: () => {},
    commit: async () => {},
  };
}

async function download(busy: number) {
  const log: string[] = [];
  const target = memoryTarget();
  const opts: ClientOptions = { hub: 'http://hub.invalid', connections: 4, loopBusy: () => () => busy };
  const res = await downloadRanged(
    opts,
    limitedSource(log),
    'http://hub.invalid/o/m/resolve/main/f',
    { path: 'f', size: SIZE, sha256: SHA },
    target,
  );
  return { res, log };
}

describe('downloadRanged: more connections only when the thread has room for them', () => {
  it('a thread that is idle while one connection streams opens more (the source is the limit)', async () => {
    const { res, log } = await download(0.1);
    expect(res.ok).toBe(true);
    expect(log.length).toBeGreaterThan(4);
  });

  it('a thread the one connection keeps busy stays at one request for the whole file (the client is the limit)', async () => {
    const { res, log } = await download(0.9);
    expect(res.ok).toBe(true);
    expect(log).toEqual([`bytes=0-${SIZE - 1}`]);
  });
});
