// A local mirror as a source (design 10.3): chosen for exactly the SHA-256s its manifest lists, re-read on each probe
// round (the mirror grows without an index rebuild); a flipped byte fails its probe or `hub mirror verify`, and
// /resolve fails over to the other source holding the same bytes.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type MirrorFolderServer, serveMirrorFolder } from '@hub/node-toolkit';
import { tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorPull, mirrorVerify } from '../src/cli-mirror.js';
import type { MirrorIo } from '../src/pull-choice.js';
import { startTestHub, TEST_SOURCE, type TestHub } from './helpers.js';

const tmp = tempDirs(afterAll);
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

// SYNTHETIC model files
const SMALL = 'tiny probe target\n';
const MID = new Uint8Array(50_000).map((_, i) => (i * 3) & 0xff);
const LATER = new Uint8Array(20_000).map((_, i) => (i * 5) & 0xff);
const TREES = { 'acme/flip': { 'small.txt': SMALL, 'mid.bin': MID }, 'acme/later': { 'later.bin': LATER } };

let hub: TestHub;
let dir: string;
let served: MirrorFolderServer;

function io(): MirrorIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false, env: {} };
}

beforeAll(async () => {
  dir = await tmp('mirror-source-');
  served = await serveMirrorFolder({ root: dir });
  hub = await startTestHub({
    trees: TREES,
    config: { sources: [{ name: 'local-mirror', kind: 'mirror', url: served.url }], order: ['local-mirror', TEST_SOURCE] },
  });
});
afterAll(async () => {
  await hub?.close();
  await served?.close();
});

async function resolved(id: string, file: string) {
  const r = await fetch(`${hub.url}/${id}/resolve/main/${file}`, { redirect: 'manual' });
  return { status: r.status, source: r.headers.get('x-hub-source'), location: r.headers.get('location') ?? '' };
}
const health = async () => (await (await fetch(`${hub.url}/api/hub/health`)).json()).sources['local-mirror'];

describe('a mirror source', () => {
  it('is chosen for exactly what its manifest lists, re-read on each probe round', async () => {
    // nothing held yet: the index's own source answers
    expect((await resolved('acme/flip', 'mid.bin')).source).toBe(TEST_SOURCE);
    const p = io();
    expect(await mirrorPull([dir, 'acme/flip', '--hub', hub.url], p), p.lines.join('\n')).toBe(0);
    await hub.running.prober.round({ force: true });
    expect(await health()).toMatchObject({ ok: true, reason: 'verified', mirror: { files: 2, bytes: SMALL.length + MID.byteLength } });
    const mid = await resolved('acme/flip', 'mid.bin');
    expect(mid).toMatchObject({ status: 302, source: 'local-mirror' });
    expect(mid.location).toBe(`${served.url}sha256/${sha256(MID)}`);
    // a model the mirror does not hold yet goes to the index's source, until the mirror grows (no index rebuild)
    expect((await resolved('acme/later', 'later.bin')).source).toBe(TEST_SOURCE);
    expect(await mirrorPull([dir, 'acme/later', '--hub', hub.url], io())).toBe(0);
    await hub.running.prober.round({ force: true });
    expect((await resolved('acme/later', 'later.bin')).source).toBe('local-mirror');
    // the model page says which files the local mirror holds
    const page = await (await fetch(`${hub.url}/models/acme/flip`)).text();
    expect(page).toMatch(/local mirror.*2 of 2 files.*small\.txt/s);
  });

  it('a flipped byte fails the probe (failover to the other source), then verify moves the file aside', async () => {
    const small = path.join(dir, 'sha256', sha256(SMALL));
    const bytes = await readFile(small);
    bytes[0] = (bytes[0] as number) ^ 0x01;
    await writeFile(small, bytes);
    // the probe walks the held files from the smallest: the next rounds reach the damaged one
    let h = await health();
    for (let i = 0; i < 3 && h.ok; i++) {
      await hub.running.prober.round({ force: true });
      h = await health();
    }
    expect(h).toMatchObject({ ok: false, reason: 'mismatch' });
    // the mirror is failing: every file goes to the other source holding the same SHA-256
    expect(await resolved('acme/flip', 'mid.bin')).toMatchObject({ status: 302, source: TEST_SOURCE });
    expect(await resolved('acme/flip', 'small.txt')).toMatchObject({ status: 302, source: TEST_SOURCE });

    const v = io();
    expect(await mirrorVerify([dir], v)).toBe(1);
    const damaged = v.lines.map((l) => JSON.parse(l)).filter((e) => e.event === 'file' && !e.ok);
    expect(damaged).toEqual([expect.objectContaining({ sha256: sha256(SMALL), actual: sha256(bytes) })]);
    expect(await readdir(path.join(dir, 'damaged'))).toHaveLength(1);
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { sha256: string }) => f.sha256)).not.toContain(sha256(SMALL));
    expect(manifest.verified).not.toBeNull();
    // the next round: the mirror passes again and no longer holds the damaged file
    await hub.running.prober.round({ force: true });
    expect(await health()).toMatchObject({ ok: true, mirror: { files: 2, verified: manifest.verified } });
    expect((await resolved('acme/flip', 'small.txt')).source).toBe(TEST_SOURCE);
    expect((await resolved('acme/flip', 'mid.bin')).source).toBe('local-mirror');
    // a second verify finds nothing wrong
    expect(await mirrorVerify([dir], io())).toBe(0);
  });
});
