// `hub get` against the real hub (node-server over loopback, its own index and /via/ routes) with SYNTHETIC
// loopback sources that lie, stall, cut the connection or serve the right bytes (issue 17).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildIndex } from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { afterEach, describe, expect, it } from 'vitest';
import { getCommand } from '../src/cli-get.js';
import { startTestHub, type TestHub } from './helpers.js';

// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const SIZE = 512 * 1024;
const DATA = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) DATA[i] = (i * 31 + 7) & 0xff;
const SHA = createHash('sha256').update(DATA).digest('hex');
const MODEL = 'synthetic/get-sources';
const FILE = 'weights-Q4_K_M.gguf';

type Mode = 'lie' | 'stall' | 'cut' | 'ok';

/** A byte source on loopback: answers any path with the file, as its mode says; logs each request's Range. */
async function source(mode: Mode) {
  const log: string[] = [];
  let served = 0;
  const server = http.createServer((req, res) => {
    log.push(`${req.method} ${req.headers.range ?? 'full'}`);
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    // wrong bytes of the right length: only the hash can tell
    const body = mode === 'lie' ? Buffer.alloc(SIZE, 1) : DATA;
    res.writeHead(m ? 206 : 200, {
      'content-length': String(SIZE - start),
      ...(m ? { 'content-range': `bytes ${start}-${SIZE - 1}/${SIZE}` } : {}),
    });
    if (mode === 'stall') {
      res.write(body.subarray(0, SIZE / 2));
      return; // then nothing
    }
    if (mode === 'cut' && served++ === 0 && !m) {
      res.write(body.subarray(0, Math.floor(SIZE * 0.6)));
      setTimeout(() => res.destroy(), 50);
      return;
    }
    res.end(body.subarray(start));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    log,
    template: `http://127.0.0.1:${port}/{id}/resolve/{revision}/{path}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A real hub whose index says every named source holds the file, in the given order. */
async function hubWith(sources: Array<[string, Mode]>) {
  const started = await Promise.all(sources.map(async ([name, mode]) => ({ name, ...(await source(mode)) })));
  for (const s of started) cleanups.push(s.close);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-get-sources-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  await buildIndex(new FsObjectStore(dataDir), {
    date: '2026-11-24',
    models: [
      {
        id: MODEL,
        license: 'mit',
        files: [{ path: FILE, size: SIZE, sha256: SHA }],
        sources: started.map((s) => ({ source: s.name, type: 'http' as const })),
      },
    ],
  });
  const hub: TestHub = await startTestHub({
    dataDir,
    config: {
      demo: false,
      sources: started.map((s) => ({ name: s.name, display: s.name, token: s.name, kind: 'http' as const, url: s.template })),
      order: started.map((s) => s.name),
    },
  });
  cleanups.push(() => hub.close());
  return { hub, logs: Object.fromEntries(started.map((s) => [s.name, s.log])) as Record<string, string[]> };
}

async function get(hub: TestHub, extra: string[] = []) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-get-to-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const code = await getCommand([`${MODEL}:Q4_K_M`, '--to', dir, '--hub', hub.url, '--stall-seconds', '0.5', ...extra], {
    out: (l) => out.push(l),
    err: () => {},
    tty: false,
    env: {},
  });
  const events = out.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, dir, events, file: events.find((e) => e.event === 'file') as Record<string, unknown> | undefined };
}

describe('hub get through the real hub, with sources that lie, stall and cut', () => {
  it('ends verified from the correct source; the report names the liar (mismatch) and the staller (stall)', async () => {
    const { hub } = await hubWith([
      ['liar', 'lie'],
      ['staller', 'stall'],
      ['good', 'ok'],
    ]);
    const r = await get(hub);
    expect(r.code).toBe(0);
    expect(r.file).toMatchObject({ file: FILE, ok: true, source: 'good', sha256: SHA });
    expect(r.file?.failed).toEqual([
      { source: 'liar', outcome: 'mismatch', reason: expect.stringContaining(`expected ${SHA}`) },
      { source: 'staller', outcome: 'stall', reason: expect.stringContaining('no byte for 0.5 s') },
    ]);
    expect(readFileSync(path.join(r.dir, FILE)).equals(DATA)).toBe(true);
    // nothing else: no temp file left beside it
    expect(readdirSync(r.dir)).toEqual([FILE]);
  });

  it('a connection cut at 60 % resumes with Range (the source sees a Range request, not a second full download)', async () => {
    const { hub, logs } = await hubWith([['cutter', 'cut']]);
    const r = await get(hub);
    expect(r.code).toBe(0);
    expect(logs.cutter).toEqual(['GET full', `GET bytes=${Math.floor(SIZE * 0.6)}-`]);
    const attempts = r.events.filter((e) => e.event === 'attempt').map((e) => [e.outcome, e.offset]);
    expect(attempts).toEqual([
      ['cut', 0],
      ['verified', Math.floor(SIZE * 0.6)],
    ]);
  });

  it('with no correct source: exit 1 and nothing at the final path', async () => {
    const { hub } = await hubWith([
      ['liar', 'lie'],
      ['staller', 'stall'],
    ]);
    const r = await get(hub);
    expect(r.code).toBe(1);
    expect(r.file).toMatchObject({ ok: false, source: null });
    expect(existsSync(path.join(r.dir, FILE))).toBe(false);
    expect(readdirSync(r.dir)).toEqual([]);
  });
});
