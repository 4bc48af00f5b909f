// Loopback test of the verifying client against a stand-in hub (tree, health, resolve and /via/ redirects
// as the hub answers them) and three SYNTHETIC sources: one lying, one stalling, one correct.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Attempt,
  downloadAll,
  downloadFile,
  type HasherFactory,
  listFiles,
  liveSources,
  modelRevision,
  selectFiles,
} from './index.js';
import { fileSink, nodeGetBytes, nodeHasher } from './node/index.js';
import { readFileChunks, WORKER_HASH_MIN_BYTES, workerHasher } from './node/transfer.js';

const SIZE = 256 * 1024;
const DATA = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) DATA[i] = (i * 31 + 7) & 0xff;
const SHA = createHash('sha256').update(DATA).digest('hex');
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function listen(h: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(h);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

type Mode = 'lie' | 'stall' | 'ok' | 'cut';
async function source(mode: Mode, log: string[]) {
  let served = 0;
  return listen((req, res) => {
    log.push(`${req.method} ${req.headers.range ?? 'full'}`);
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const body = mode === 'lie' ? Buffer.alloc(SIZE, 1) : DATA;
    res.writeHead(m ? 206 : 200, { 'content-length': String(SIZE - start) });
    if (mode === 'stall') return res.write(body.subarray(0, SIZE / 2));
    if (mode === 'cut' && served++ === 0 && !m) {
      res.write(body.subarray(0, Math.floor(SIZE * 0.6)));
      return setTimeout(() => res.destroy(), 50);
    }
    res.end(body.subarray(start));
  });
}

async function hub(order: Array<[string, string]>) {
  return listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (url.pathname === '/api/hub/health')
      return json({ order: order.map(([n]) => n), sources: Object.fromEntries(order.map(([n]) => [n, { ok: true, checked: null }])) });
    if (url.pathname.startsWith('/api/models/o/m/tree/'))
      return json([
        { type: 'file', oid: SHA, size: SIZE, path: 'w-Q4_K_M.gguf', lfs: { oid: SHA, size: SIZE, pointerSize: 134 } },
        { type: 'file', oid: 'a'.repeat(64), size: 3, path: 'w-Q8_0.gguf' },
      ]);
    const via = /^\/via\/([^/]+)\//.exec(url.pathname)?.[1];
    const pick = order.find(([n]) => n === via) ?? order[0];
    if (!pick) return res.writeHead(503).end();
    res.writeHead(302, { location: `${pick[1]}/file`, 'x-hub-source': pick[0] }).end();
  });
}

describe('@hub/client', () => {
  it('moves past a lying and a stalling source and verifies from the correct one', async () => {
    const logs = { liar: [] as string[], staller: [] as string[], good: [] as string[] };
    const h = await hub([
      ['liar', await source('lie', logs.liar)],
      ['staller', await source('stall', logs.staller)],
      ['good', await source('ok', logs.good)],
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'client-'));
    const attempts: Attempt[] = [];
    const opts = { hub: h, hasher: nodeHasher, stallSeconds: 0.5, onAttempt: (a: Attempt) => attempts.push(a) };
    const files = selectFiles(await listFiles(opts, 'o/m'), [], 'Q4_K_M');
    expect(files.map((f) => f.path)).toEqual(['w-Q4_K_M.gguf']);
    const [r] = await downloadAll(opts, 'o/m', 'main', files, (f) => fileSink(join(dir, f.path)));
    expect(r?.ok).toBe(true);
    expect(r?.source).toBe('good');
    expect(attempts.map((a) => [a.source, a.outcome])).toEqual([
      ['liar', 'mismatch'],
      ['staller', 'stall'],
      ['good', 'verified'],
    ]);
    expect(readFileSync(join(dir, 'w-Q4_K_M.gguf')).equals(DATA)).toBe(true);
    expect(readdirSync(dir)).toEqual(['w-Q4_K_M.gguf']);
  });

  it('resumes a connection cut at 60 % with Range instead of a second full download', async () => {
    const log: string[] = [];
    const h = await hub([['cutter', await source('cut', log)]]);
    const dir = mkdtempSync(join(tmpdir(), 'client-'));
    const opts = { hub: h, hasher: nodeHasher, stallSeconds: 2 };
    const files = selectFiles(await listFiles(opts, 'o/m'), ['*Q4_K_M*']);
    const [r] = await downloadAll(opts, 'o/m', 'main', files, (f) => fileSink(join(dir, f.path)));
    expect(r?.ok).toBe(true);
    expect(log).toEqual(['GET full', `GET bytes=${Math.floor(SIZE * 0.6)}-`]);
    expect(r?.attempts.map((a) => a.outcome)).toEqual(['cut', 'verified']);
  });

  it('with no correct source: not ok, nothing at the final path', async () => {
    const h = await hub([['liar', await source('lie', [])]]);
    const dir = mkdtempSync(join(tmpdir(), 'client-'));
    const opts = { hub: h, stallSeconds: 0.5 };
    const files = selectFiles(await listFiles(opts, 'o/m'), ['w-Q4_K_M.gguf']);
    const [r] = await downloadAll(opts, 'o/m', 'main', files, (f) => fileSink(join(dir, f.path)));
    expect(r?.ok).toBe(false);
    expect(r?.attempts.every((a) => a.outcome === 'mismatch')).toBe(true);
    expect(existsSync(join(dir, 'w-Q4_K_M.gguf'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('given getBytes and no fetch, the JSON routes go over getBytes: the runtime fetch is never called', async () => {
    const h = await hub([['good', await source('ok', [])]]);
    const real = globalThis.fetch;
    globalThis.fetch = (() => Promise.reject(new Error('the runtime fetch was called'))) as typeof fetch;
    try {
      const opts = { hub: h, getBytes: nodeGetBytes, hasher: nodeHasher };
      expect((await listFiles(opts, 'o/m')).map((f) => f.path)).toEqual(['w-Q4_K_M.gguf', 'w-Q8_0.gguf']);
      expect(await liveSources(opts)).toEqual(['good']);
      // a JSON route answering an error status: the status and the body in the message
      const missing = await listen((_req, res) => res.writeHead(404).end('no such model'));
      await expect(modelRevision({ ...opts, hub: missing }, 'o/m')).rejects.toThrow(/api\/models\/o\/m: 404 no such model/);
    } finally {
      globalThis.fetch = real;
    }
  });

  it('readFileChunks hands over a whole file or its first bytes, in order, from one reused buffer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-read-'));
    const file = join(dir, 'f.bin');
    // SYNTHETIC: over two read buffers, so the buffer is reused
    const bytes = Buffer.alloc((2 << 20) + 333);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 11 + (i >> 9)) & 0xff;
    writeFileSync(file, bytes);
    const read = async (length?: number) => {
      const parts: Buffer[] = [];
      const seen = new Set<ArrayBufferLike>();
      await readFileChunks(
        file,
        (c) => {
          seen.add(c.buffer);
          parts.push(Buffer.from(c));
        },
        length,
      );
      return { all: Buffer.concat(parts), buffers: seen.size };
    };
    const whole = await read();
    expect(whole.all.equals(bytes)).toBe(true);
    expect(whole.buffers).toBe(1);
    expect((await read(1000)).all.equals(bytes.subarray(0, 1000))).toBe(true);
    expect((await read((1 << 20) + 5)).all.equals(bytes.subarray(0, (1 << 20) + 5))).toBe(true);
    expect((await read(bytes.length + 10)).all.equals(bytes)).toBe(true);
  });

  it('the hashing thread gives node:crypto SHA-256 of the same bytes, in any chunking', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 12345);
    for (let i = 0; i < big.length; i += 7) big[i] = (i * 13) & 0xff;
    const expected = createHash('sha256').update(big).digest('hex');
    for (const step of [1000, 65536, 1 << 20, big.length]) {
      const h = workerHasher();
      for (let at = 0; at < big.length; at += step) await h.update(big.subarray(at, at + step));
      expect(await h.digest()).toBe(expected);
    }
  });
});

// The overlapped path: node:net reads into one reused buffer, the hash (on this thread by default, in a worker thread
// with HUB_HASH_THREAD=1) and the file writes on libuv's threads; both hashers are held to the same promises.
describe.each([
  ['on the main thread', nodeHasher],
  ['in a worker thread', (() => workerHasher()) as HasherFactory],
])('@hub/client overlapped: a large file hashed %s while it is written', (_where, hasher) => {
  // SYNTHETIC bytes, over the size from which the hash runs on another thread.
  const BIG = WORKER_HASH_MIN_BYTES + 3 * 1024 * 1024;
  const BIG_DATA = Buffer.alloc(BIG);
  for (let i = 0; i < BIG; i += 4096) BIG_DATA.fill((i / 4096) & 0xff, i, i + 4096);
  const BIG_SHA = createHash('sha256').update(BIG_DATA).digest('hex');

  /** A source of the big file; `flip` changes one byte in the middle (the hash fails only at the end). */
  const bigSource = (flip: boolean, seen: () => void) =>
    listen((_req, res) => {
      const body = flip ? Buffer.from(BIG_DATA) : BIG_DATA;
      if (flip) body[BIG >> 1] = (body[BIG >> 1] as number) ^ 0xff;
      res.writeHead(200, { 'content-length': String(BIG) });
      res.write(body.subarray(0, BIG >> 1));
      // mid-file, with half the bytes already handed to the sink and the hashing thread
      setTimeout(() => {
        seen();
        res.end(body.subarray(BIG >> 1));
      }, 30);
    });

  it('a hash that fails mid-file leaves nothing at the final path; the next source is verified; the report names the source that served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-big-'));
    const final = join(dir, 'big.gguf');
    const atFinalMidFile: boolean[] = [];
    const bad = await bigSource(true, () => atFinalMidFile.push(existsSync(final)));
    const good = await bigSource(false, () => atFinalMidFile.push(existsSync(final)));
    // Asked for `/via/other/`, the hub sends the client to `good` (another holder): the report must name `good`.
    const h = await listen((req, res) => {
      const via = /^\/via\/([^/]+)\//.exec(req.url ?? '')?.[1];
      const [name, url] = via === 'bad' ? ['bad', bad] : ['good', good];
      res.writeHead(302, { location: `${url}/big.gguf`, 'x-hub-source': name }).end();
    });
    const file = { path: 'big.gguf', size: BIG, sha256: BIG_SHA };
    const sink = await fileSink(final);
    const r = await downloadFile({ hub: h, hasher, getBytes: nodeGetBytes }, 'o/m', 'main', file, sink, ['bad', 'other']);
    await sink.commit(r.ok);
    expect(r.attempts.map((a) => [a.source, a.outcome])).toEqual([
      ['bad', 'mismatch'],
      ['good', 'verified'],
    ]);
    expect(r.source).toBe('good');
    expect(atFinalMidFile).toEqual([false, false]);
    expect(readFileSync(final).equals(BIG_DATA)).toBe(true);
    expect(readdirSync(dir)).toEqual(['big.gguf']);
  });

  it('with only a lying source: not ok, no final file and no temp file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-big-'));
    const final = join(dir, 'big.gguf');
    const bad = await bigSource(true, () => {});
    const h = await listen((_req, res) => res.writeHead(302, { location: `${bad}/big.gguf`, 'x-hub-source': 'bad' }).end());
    const sink = await fileSink(final);
    const r = await downloadFile(
      { hub: h, hasher, getBytes: nodeGetBytes },
      'o/m',
      'main',
      { path: 'big.gguf', size: BIG, sha256: BIG_SHA },
      sink,
      ['bad'],
    );
    await sink.commit(r.ok);
    expect(r.ok).toBe(false);
    expect(r.attempts.map((a) => a.outcome)).toEqual(['mismatch']);
    expect(readdirSync(dir)).toEqual([]);
  });
});
