// `hub get` against the real hub (node-server over loopback, its own index and /via/ routes) with SYNTHETIC
// loopback sources that lie, stall, cut the connection or serve the right bytes (issue 17).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, hubWith as hubOver, type Mode, runGet, tempDir } from './byte-sources.js';

// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const SIZE = 512 * 1024;
const DATA = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) DATA[i] = (i * 31 + 7) & 0xff;
const SHA = createHash('sha256').update(DATA).digest('hex');
const MODEL = 'synthetic/get-sources';
const FILE = 'weights-Q4_K_M.gguf';

afterEach(cleanUp);

/** A real hub whose index says every named source holds the file, in the given order. */
async function hubWith(sources: Array<[string, Mode]>) {
  const { hub, state } = await hubOver({ id: MODEL, date: '2026-11-24', files: [{ path: FILE, bytes: DATA }] }, sources, {
    template: '{id}/resolve/{revision}/{path}',
  });
  return { hub, logs: Object.fromEntries(Object.entries(state).map(([k, v]) => [k, v.log])) };
}

async function get(hub: { url: string }, extra: string[] = []) {
  const dir = await tempDir('hub-get-to-');
  return { dir, ...(await runGet([`${MODEL}:Q4_K_M`, '--to', dir, '--hub', hub.url, '--stall-seconds', '0.5', ...extra])) };
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
    expect(logs.cutter).toEqual(['full', `bytes=${Math.floor(SIZE * 0.6)}-`]);
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
