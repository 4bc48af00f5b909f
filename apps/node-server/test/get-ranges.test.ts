// `hub get` of a large file in ranges over several connections and several sources at once (issue 42), against the
// real hub (node-server over loopback: its index, its resolve redirect with `Link: rel="duplicate"`) and SYNTHETIC
// loopback sources that honour Range, lie about one range, or go slowly enough to be killed in the middle.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, hubWith as hubOver, type Mode, runGet, tempDir } from './byte-sources.js';
import type { TestHub } from './helpers.js';

// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const MiB = 1 << 20;
const SIZE = 20 * MiB + 12345;
const DATA = Buffer.alloc(SIZE);
for (let i = 0; i + 4 <= SIZE; i += 4) DATA.writeUInt32LE(Math.imul(i, 2654435761) >>> 0, i);
const SHA = createHash('sha256').update(DATA).digest('hex');
const SMALL = Buffer.from('SYNTHETIC small file, fetched in one request\n'.repeat(1000));
const MODEL = 'synthetic/get-ranges';
const FILE = 'weights-Q4_K_M.gguf';
const CLI = path.join(import.meta.dirname, '..', 'dist', 'cli.js');
/** the byte a `corrupt` source flips */
const BAD = 10 * MiB + 7;

afterEach(cleanUp);

/** A real hub whose index says every named source holds both files, in the given order. */
const hubWith = (sources: Array<[string, Mode]>) =>
  hubOver(
    {
      id: MODEL,
      date: '2026-11-28',
      files: [
        { path: FILE, bytes: DATA },
        { path: 'small.txt', bytes: SMALL },
      ],
    },
    sources,
    { corruptAt: BAD },
  );

const outDir = () => tempDir('hub-get-ranges-to-');

const get = (hub: TestHub, dir: string, args: string[]) => runGet([MODEL, ...args, '--to', dir, '--hub', hub.url, '--stall-seconds', '5']);

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
    const { code } = await runGet([MODEL, FILE, '--hf-cache', cache, '--hub', hub.url]);
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
    // the second run, from a now fast source: asks only for bytes the record does not hold (each range inside a gap;
    // the record may have grown after it was read here, so its gaps can only be smaller)
    if (state.slow) state.slow.mode = 'ok';
    const before = state.slow?.log.length ?? 0;
    const r = await get(hub, dir, [FILE, '--connections', '4']);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, FILE)).equals(DATA)).toBe(true);
    const again = (state.slow?.log.slice(before) ?? []).map((r): [number, number] => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(r);
      return m ? [Number(m[1]), Number(m[2]) + 1] : [0, SIZE];
    });
    expect(again.length).toBeGreaterThan(0);
    for (const [start, end] of again) expect(record.filter(([s, e]) => start < e && end > s)).toEqual([]);
    expect(readdirSync(dir)).toEqual([FILE]);
  });
});
