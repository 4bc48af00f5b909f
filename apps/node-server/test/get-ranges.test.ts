// `hub get` of a large file in ranges over several connections and several sources at once (issue 42), against the
// real hub (node-server over loopback: its index, its resolve redirect with `Link: rel="duplicate"`) and SYNTHETIC
// loopback sources that honour Range, lie about one range, or go slowly enough to be killed in the middle.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
const MiB = 1 << 20;
const SIZE = 20 * MiB + 12345;
const DATA = Buffer.alloc(SIZE);
for (let i = 0; i + 4 <= SIZE; i += 4) DATA.writeUInt32LE(Math.imul(i, 2654435761) >>> 0, i);
const SHA = createHash('sha256').update(DATA).digest('hex');
const SMALL = Buffer.from('SYNTHETIC small file, fetched in one request\n'.repeat(1000));
const SMALL_SHA = createHash('sha256').update(SMALL).digest('hex');
const MODEL = 'synthetic/get-ranges';
const FILE = 'weights-Q4_K_M.gguf';
const CLI = path.join(import.meta.dirname, '..', 'dist', 'cli.js');

/**
 * `ok`: the right bytes; `lie-once`: its first range answer has one byte flipped; `corrupt`: its copy has byte
 * {@link BAD} flipped (every answer holding it); `slow`: 64 KiB every 60 ms per answer; `no-range`: ignores Range;
 * `fail-later`: answers its first range, then 503 to every request.
 */
type Mode = 'ok' | 'lie-once' | 'corrupt' | 'slow' | 'no-range' | 'fail-later';
const BAD = 10 * MiB + 7;

/** A byte source on loopback serving both files with Range (206 and Content-Range); logs each request's Range. */
async function source(initial: Mode) {
  const state = { mode: initial, lied: false, log: [] as string[] };
  const server = http.createServer((req, res) => {
    const body = req.url?.endsWith('small.txt') ? SMALL : DATA;
    state.log.push(req.headers.range ?? 'full');
    if (state.mode === 'fail-later' && state.log.length > 1) return void res.writeHead(503).end();
    const m = state.mode === 'no-range' ? null : /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    let part = body.subarray(start, end + 1);
    if (state.mode === 'lie-once' && m && !state.lied) {
      state.lied = true;
      part = Buffer.from(part);
      const at = Math.floor(part.length / 2);
      part[at] = (part[at] as number) ^ 0xff;
    }
    if (state.mode === 'corrupt' && start <= BAD && BAD <= end) {
      part = Buffer.from(part);
      part[BAD - start] = (part[BAD - start] as number) ^ 0xff;
    }
    res.writeHead(m ? 206 : 200, {
      'content-length': String(part.length),
      ...(m ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    if (state.mode !== 'slow') return void res.end(part);
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(part.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
      if (at >= part.length) {
        clearInterval(timer);
        res.end();
      }
    }, 60);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    state,
    template: `http://127.0.0.1:${port}/{id}/{path}`,
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

/** A real hub whose index says every named source holds both files, in the given order. */
async function hubWith(sources: Array<[string, Mode]>) {
  const started = await Promise.all(sources.map(async ([name, mode]) => ({ name, ...(await source(mode)) })));
  for (const s of started) cleanups.push(s.close);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-get-ranges-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  await buildIndex(new FsObjectStore(dataDir), {
    date: '2026-11-28',
    models: [
      {
        id: MODEL,
        license: 'mit',
        files: [
          { path: FILE, size: SIZE, sha256: SHA },
          { path: 'small.txt', size: SMALL.length, sha256: SMALL_SHA },
        ],
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
  return { hub, state: Object.fromEntries(started.map((s) => [s.name, s.state])) as Record<string, (typeof started)[number]['state']> };
}

async function outDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-get-ranges-to-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function get(hub: TestHub, dir: string, args: string[]) {
  const out: string[] = [];
  const code = await getCommand([MODEL, ...args, '--to', dir, '--hub', hub.url, '--stall-seconds', '5'], {
    out: (l) => out.push(l),
    err: () => {},
    tty: false,
    env: {},
  });
  const events = out.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, events, file: events.find((e) => e.event === 'file') as Record<string, unknown> | undefined };
}

const requested = (log: string[]) =>
  log.reduce((n, r) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(r);
    return n + (m ? Number(m[2]) - Number(m[1]) + 1 : SIZE);
  }, 0);

describe('hub get in ranges over several sources', () => {
  it('one of two sources serves wrong bytes for one range: the right file, that source named, nothing unverified left', async () => {
    const { hub, state } = await hubWith([
      ['good', 'ok'],
      ['liar', 'lie-once'],
    ]);
    const dir = await outDir();
    const r = await get(hub, dir, [FILE, '--connections', '2']);
    expect(r.code).toBe(0);
    expect(state.liar?.lied).toBe(true);
    // both sources served ranges at once (the hub listed both on its redirect)
    expect(state.good?.log.every((l) => l.startsWith('bytes='))).toBe(true);
    expect(state.liar?.log.length).toBeGreaterThan(0);
    expect(r.file).toMatchObject({ file: FILE, ok: true, source: 'good', sha256: SHA });
    expect(r.file?.failed).toEqual([
      { source: 'liar', outcome: 'mismatch', reason: expect.stringMatching(/^bytes \d+-\d+ differ from good's/) },
    ]);
    expect(readFileSync(path.join(dir, FILE)).equals(DATA)).toBe(true);
    // no temp file, no range record beside it
    expect(readdirSync(dir)).toEqual([FILE]);
    // progress off a terminal: JSON lines with the bytes of each source
    const progress = r.events.filter((e) => e.event === 'progress');
    expect(progress.at(-1)).toMatchObject({ file: FILE, received: SIZE, size: SIZE });
    expect(Object.keys(progress.at(-1)?.sources as object).sort()).toEqual(['good', 'liar']);
  });

  it('a source that starts failing is dropped for the rest of the file; its ranges go to the other', async () => {
    const { hub, state } = await hubWith([
      ['good', 'ok'],
      ['flaky', 'fail-later'],
    ]);
    const dir = await outDir();
    const r = await get(hub, dir, [FILE, '--connections', '2']);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, FILE)).equals(DATA)).toBe(true);
    // a 503 (one per connection that was asking at the time), then no further request to it
    const failed = (r.file?.failed ?? []) as unknown[];
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const f of failed) expect(f).toEqual({ source: 'flaky', outcome: 'status', reason: 'HTTP 503' });
    expect(state.flaky?.log).toHaveLength(1 + failed.length);
    expect(Object.keys(r.file?.sources as object).sort()).toEqual(['flaky', 'good']);
  });

  it('every source wrong: exit 1, each named, nothing at the final path and no temp file kept', async () => {
    const { hub } = await hubWith([
      ['liar-a', 'corrupt'],
      ['liar-b', 'corrupt'],
    ]);
    const dir = await outDir();
    const r = await get(hub, dir, [FILE, '--connections', '2']);
    expect(r.code).toBe(1);
    expect(r.file).toMatchObject({ ok: false, source: null });
    const named = ((r.file?.failed ?? []) as Array<{ source: string; outcome: string }>)
      .filter((f) => f.outcome === 'mismatch')
      .map((f) => f.source);
    expect(new Set(named)).toEqual(new Set(['liar-a', 'liar-b']));
    expect(existsSync(path.join(dir, FILE))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("into the host's cache layout: the blob by SHA-256 from ranges, the snapshot link, nothing else in blobs/", async () => {
    const { hub } = await hubWith([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
    const cache = await outDir();
    const out: string[] = [];
    const code = await getCommand([MODEL, FILE, '--hf-cache', cache, '--hub', hub.url], {
      out: (l) => out.push(l),
      err: () => {},
      tty: false,
      env: {},
    });
    expect(code).toBe(0);
    const repo = path.join(cache, 'models--synthetic--get-ranges');
    expect(readdirSync(path.join(repo, 'blobs'))).toEqual([SHA]);
    expect(readFileSync(path.join(repo, 'blobs', SHA)).equals(DATA)).toBe(true);
    const commit = readFileSync(path.join(repo, 'refs', 'main'), 'utf8');
    expect(readFileSync(path.join(repo, 'snapshots', commit, FILE)).equals(DATA)).toBe(true);
  });

  it('a small file is still one request without Range, from one source', async () => {
    const { hub, state } = await hubWith([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
    const dir = await outDir();
    const r = await get(hub, dir, ['small.txt']);
    expect(r.code).toBe(0);
    expect([...(state.a?.log ?? []), ...(state.b?.log ?? [])]).toEqual(['full']);
    expect(r.events.some((e) => e.event === 'progress')).toBe(false);
    expect(readFileSync(path.join(dir, 'small.txt')).equals(SMALL)).toBe(true);
  });

  it('--connections 1 fetches a large file in one request', async () => {
    const { hub, state } = await hubWith([['a', 'ok']]);
    const dir = await outDir();
    const r = await get(hub, dir, [FILE, '--connections', '1']);
    expect(r.code).toBe(0);
    expect(state.a?.log).toEqual(['full']);
  });

  it('a source that ignores Range (200 with the whole file): the file is fetched in one request instead', async () => {
    const { hub, state } = await hubWith([['plain', 'no-range']]);
    const dir = await outDir();
    const r = await get(hub, dir, [FILE]);
    expect(r.code).toBe(0);
    expect(state.plain?.log).toEqual([expect.stringMatching(/^bytes=0-\d+$/), 'full']);
    expect(r.file).toMatchObject({ ok: true, source: 'plain' });
    expect(readFileSync(path.join(dir, FILE)).equals(DATA)).toBe(true);
    expect(readdirSync(dir)).toEqual([FILE]);
  });

  it('an interrupted parallel download (the process killed) continues from the ranges it recorded', async () => {
    const { hub, state } = await hubWith([['slow', 'slow']]);
    const dir = await outDir();
    // the built CLI in its own process, killed once its record beside the temp file holds some completed ranges
    const child = execFile(process.execPath, [CLI, 'get', MODEL, FILE, '--to', dir, '--hub', hub.url, '--connections', '4'], {
      env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    });
    const exited = new Promise((r) => child.on('exit', r));
    let record: [number, number][] = [];
    for (let i = 0; i < 400 && record.reduce((n, [s, e]) => n + e - s, 0) < 3 * MiB; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const name = readdirSync(dir).find((n) => n.endsWith('.ranges'));
      if (name) record = JSON.parse(await readFile(path.join(dir, name), 'utf8').catch(() => '{"done":[]}')).done;
    }
    child.kill('SIGKILL');
    await exited;
    const kept = record.reduce((n, [s, e]) => n + e - s, 0);
    expect(kept).toBeGreaterThanOrEqual(3 * MiB);
    expect(existsSync(path.join(dir, FILE))).toBe(false);
    // the second run, from a now fast source: asks only for what the record does not hold (and maybe a little more)
    (state.slow as { mode: Mode }).mode = 'ok';
    const before = state.slow?.log.length ?? 0;
    const r = await get(hub, dir, [FILE, '--connections', '4']);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, FILE)).equals(DATA)).toBe(true);
    const again = requested(state.slow?.log.slice(before) ?? []);
    expect(again).toBeLessThanOrEqual(SIZE - kept);
    expect(readdirSync(dir)).toEqual([FILE]);
  });
});
