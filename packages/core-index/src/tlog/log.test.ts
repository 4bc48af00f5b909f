import { describe, expect, it } from 'vitest';
import { buildIndex, readArchive } from '../build/builder.js';
import type { Address } from '../index/blake3.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import { appendDays, checkLogStore, readLogEntries, readLogState, readTile } from './log-store.js';
import { formatCheckpoint, generateSignerKey, openNote, parseCheckpoint, parseSignerKey, parseVerifierKey, signNote } from './note.js';
import {
  consistencyProof,
  type Hash,
  hashTileBytes,
  inclusionProof,
  leafHash,
  parseTilePath,
  tilePath,
  tilesForSize,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from './tlog.js';

const enc = new TextEncoder();
const leaves = (n: number): Hash[] => Array.from({ length: n }, (_, i) => leafHash(enc.encode(`SYNTHETIC entry ${i}`)));

describe('RFC 6962 proofs', () => {
  it('every inclusion and consistency proof up to 40 leaves verifies, and fails on another root or leaf', () => {
    for (let n = 1; n <= 40; n++) {
      const all = leaves(n);
      const root = treeHash(all);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(i, all);
        expect(verifyInclusion(i, n, all[i] as Hash, proof, root)).toBe(true);
        expect(verifyInclusion(i, n, leafHash(enc.encode('other')), proof, root)).toBe(false);
      }
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, all);
        const old = treeHash(all.slice(0, m));
        expect(verifyConsistency(m, n, old, root, proof), `${m} -> ${n}`).toBe(true);
        const rewritten = [...all.slice(0, m - 1), leafHash(enc.encode('rewritten')), ...all.slice(m)];
        expect(verifyConsistency(m, n, old, treeHash(rewritten), consistencyProof(m, rewritten))).toBe(false);
      }
    }
  });

  it('names tiles as C2SP tlog-tiles does and parses only what it writes', () => {
    expect(tilePath({ level: 0, n: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 'entries', n: 0, width: 3 })).toBe('tile/entries/000.p/3');
    expect(parseTilePath('tile/2/x001/234.p/5')).toEqual({ level: 2, n: 1234, width: 5 });
    for (const bad of [
      'tile/0/1.p/3',
      'tile/00/000',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/0/x000',
      'tile/0/000.p/03',
      'tile/64/000',
    ])
      expect(parseTilePath(bad), bad).toBeUndefined();
    // The C2SP example: a tree of 70,000 leaves.
    const hashTiles = tilesForSize(70_000).filter((t) => t.level !== 'entries');
    expect(hashTiles.filter((t) => t.level === 0 && t.width === 256)).toHaveLength(273);
    expect(hashTiles.filter((t) => t.width < 256).map((t) => [t.level, t.width])).toEqual([
      [0, 112],
      [1, 17],
      [2, 1],
    ]);
    // A level-1 hash is the root of a full level-0 tile.
    const all = leaves(600);
    const l1 = hashTileBytes(all, { level: 1, n: 0, width: 2 });
    expect(l1.subarray(32, 64)).toEqual(treeHash(all, 256, 512));
  });
});

describe('signed notes', () => {
  it('signs in the note format, verifies with the verifier key, ignores unknown keys and rejects a flipped byte', async () => {
    const a = await generateSignerKey('hub.example/log');
    const b = await generateSignerKey('hub.example/log');
    const signerA = await parseSignerKey(a.signerKey);
    expect(signerA.verifierKey).toBe(a.verifierKey);
    const text = formatCheckpoint({ origin: 'hub.example/log', size: 3, root: treeHash(leaves(3)) });
    const note = await signNote(text, [signerA, await parseSignerKey(b.signerKey)]);
    expect(note).toMatch(/^hub\.example\/log\n3\n[A-Za-z0-9+/]{43}=\n\n\u2014 hub\.example\/log \S+\n\u2014 hub\.example\/log \S+\n$/);
    const opened = await openNote(note, [await parseVerifierKey(a.verifierKey)]);
    expect(opened.text).toBe(text);
    expect(parseCheckpoint(opened.text).size).toBe(3);
    await expect(openNote(note.replace('\n3\n', '\n4\n'), [await parseVerifierKey(a.verifierKey)])).rejects.toThrow(/does not verify/);
    const other = await generateSignerKey('hub.example/log');
    await expect(openNote(note, [await parseVerifierKey(other.verifierKey)])).rejects.toThrow(/no signature by a known key/);
    await expect(parseVerifierKey(`${a.verifierKey.slice(0, -4)}AAA=`)).rejects.toThrow(/key ID does not match|not an Ed25519/);
  });
});

/** A store whose writes (puts and refs) fail from the `limit`-th on, as a process killed mid-build would leave it. */
function crashing(store: MemoryObjectStore, limit: number): ObjectStore {
  let writes = 0;
  const tick = () => {
    if (++writes > limit) throw new Error('SYNTHETIC crash');
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'put')
        return async (...args: Parameters<ObjectStore['put']>) => {
          tick();
          return target.put(...args);
        };
      if (prop === 'writeRef')
        return async (...args: Parameters<ObjectStore['writeRef']>) => {
          tick();
          return target.writeRef(...args);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const model = (day: number) => ({
  id: 'synthetic-org/log-model',
  revision: String(day).repeat(40).slice(0, 40),
  files: [{ path: 'weights.bin', size: day, sha256: String(day).repeat(64).slice(0, 64) }],
  sources: [{ source: 'mirror-a', type: 'http' as const }],
});

async function checkLog(store: ObjectStore, vkey: string) {
  const state = await readLogState(store);
  const entries = await readLogEntries(store, state);
  const note = new TextDecoder().decode((await store.get(state.checkpoint as Address))?.bytes);
  const cp = parseCheckpoint((await openNote(note, [await parseVerifierKey(vkey)])).text);
  expect(cp.size).toBe(entries.length);
  expect(cp.root).toEqual(treeHash(entries.map(leafHash)));
  for (const t of tilesForSize(state.size)) expect(await readTile(store, state, t), tilePath(t)).toBeDefined();
  return state;
}

describe('the archive as a log', () => {
  it('each day is one leaf chained to the previous leaf; a rerun of a finished day appends nothing', async () => {
    const key = await generateSignerKey('hub.example/log');
    const signers = [await parseSignerKey(key.signerKey)];
    const store = new MemoryObjectStore();
    for (const [i, date] of ['2026-11-21', '2026-11-22', '2026-11-23'].entries())
      await buildIndex(store, { date, models: [model(i + 1)], signers });
    const state = await checkLog(store, key.verifierKey);
    expect(state.size).toBe(3);
    const entries = (await readLogEntries(store, state)).map((e) => JSON.parse(new TextDecoder().decode(e)));
    expect(entries.map((e) => e.date)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(entries[1].prev).toBe(Buffer.from(leafHash(enc.encode(JSON.stringify(entries[0])))).toString('hex'));
    const archive = await readArchive(store);
    expect(archive.days.map((d) => d.leaf)).toEqual([2, 1, 0]);
    expect(archive.days[0]?.checkpoint).toBe(state.checkpoint);
    await buildIndex(store, { date: '2026-11-23', models: [model(3)], signers });
    expect((await readLogState(store)).size).toBe(3);
  });

  it('a build that dies at any write leaves a log whose checkpoint verifies, and the rerun appends exactly one leaf', async () => {
    const key = await generateSignerKey('hub.example/log');
    const signers = [await parseSignerKey(key.signerKey)];
    const base = new MemoryObjectStore();
    for (const [i, date] of ['2026-11-21', '2026-11-22'].entries()) await buildIndex(base, { date, models: [model(i + 1)], signers });
    let crashes = 0;
    for (let limit = 0; limit < 50; limit++) {
      const store = new MemoryObjectStore();
      for (const name of ['log', 'archive', 'current']) await store.writeRef(name, (await base.readRef(name)) as string);
      for (const item of (await base.list({ limit: 1000 })).items) {
        const o = await base.get(item.id as Address);
        await store.put(o!.bytes, { kind: item.kind, mediaType: item.media_type });
      }
      const died = await buildIndex(crashing(store, limit), { date: '2026-11-23', models: [model(3)], signers }).then(
        () => false,
        (e: Error) => e.message === 'SYNTHETIC crash',
      );
      if (!died) break;
      crashes++;
      const before = await checkLog(store, key.verifierKey);
      expect(before.size).toBeGreaterThanOrEqual(2);
      await buildIndex(store, { date: '2026-11-23', models: [model(3)], signers });
      const after = await checkLog(store, key.verifierKey);
      expect(after.size, `crash after ${limit} writes`).toBe(3);
    }
    // Every write of the day's build was a crash point: objects, the log's tiles and checkpoint, its ref, the archive.
    expect(crashes).toBeGreaterThanOrEqual(6);
  });

  it('appends without a key (no checkpoint) and signs the whole log once a key is given', async () => {
    const store = new MemoryObjectStore();
    await appendDays(store, [{ date: '2026-11-21', index: `blake3:${'1'.repeat(64)}`, catalog: `blake3:${'1'.repeat(64)}` }]);
    expect((await readLogState(store)).checkpoint).toBeNull();
    const key = await generateSignerKey('hub.example/log');
    const r = await appendDays(
      store,
      [{ date: '2026-11-22', index: `blake3:${'2'.repeat(64)}`, catalog: `blake3:${'2'.repeat(64)}` }],
      [await parseSignerKey(key.signerKey)],
    );
    expect(r).toMatchObject({ leaf: 1, leaves: [1], appended: true, size: 2 });
    await checkLog(store, key.verifierKey);
  });

  it("names each given day's leaf: new days after the log, a day equal to the last leaf that leaf", async () => {
    const store = new MemoryObjectStore();
    const day = (n: number) => ({
      date: `2026-11-2${n}`,
      index: `blake3:${String(n).repeat(64)}`,
      catalog: `blake3:${String(n).repeat(64)}`,
    });
    expect(await appendDays(store, [day(1), day(2)])).toMatchObject({ leaves: [0, 1], size: 2 });
    // a rerun of the last day appends nothing; the days after it go on from there
    expect(await appendDays(store, [day(2), day(3), day(4)])).toMatchObject({ leaves: [1, 2, 3], leaf: 3, size: 4 });
    const entries = await readLogEntries(store, await readLogState(store));
    expect(entries.map((b) => JSON.parse(new TextDecoder().decode(b)).date)).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
  });
});

describe("a store's log checked against itself", () => {
  it('passes on a built log and names a forged tile, a forged checkpoint and a day whose leaf is not its own', async () => {
    const key = await generateSignerKey('hub.example/log');
    const signers = [await parseSignerKey(key.signerKey)];
    const store = new MemoryObjectStore();
    for (const [i, date] of ['2026-11-21', '2026-11-22'].entries()) await buildIndex(store, { date, models: [model(i + 1)], signers });
    const days = (await readArchive(store)).days;
    expect(await checkLogStore(store, days)).toEqual([]);
    const state = await readLogState(store);
    // A tile object that hashes to its own address but is not what the entries make (a forged store, not a bit flip).
    const forged = await store.put(new Uint8Array(64).fill(7), { kind: 'model-hub.log-tile', mediaType: 'application/octet-stream' });
    await store.writeRef('log', JSON.stringify({ ...state, tiles: { ...state.tiles, '0/0': forged.meta.id } }));
    expect(await checkLogStore(store, days)).toEqual(['log 0/0: the tile does not match the entries']);
    const other = await parseSignerKey((await generateSignerKey('hub.example/log')).signerKey);
    const note = await signNote(formatCheckpoint({ origin: 'hub.example/log', size: 2, root: treeHash(leaves(2)) }), [other]);
    const cp = await store.put(enc.encode(note), { kind: 'model-hub.checkpoint', mediaType: 'text/plain; charset=utf-8' });
    await store.writeRef('log', JSON.stringify({ ...state, checkpoint: cp.meta.id }));
    expect((await checkLogStore(store, days))[0]).toMatch(
      /^log checkpoint blake3:[0-9a-f]{64}: the note carries no signature by a known key/,
    );
    await store.writeRef('log', JSON.stringify(state));
    expect(await checkLogStore(store, [{ ...(days[0] as (typeof days)[number]), leaf: 0 }])).toEqual([
      'archive day 2026-11-22: leaf 0 of the log is not this day',
    ]);
  });
});

/** `count` SYNTHETIC archived days from 2026-01-01 on, each with made-up addresses. */
const syntheticDays = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const hex = n.toString(16).padStart(4, '0').repeat(16);
    return {
      date: new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10),
      index: `blake3:${hex}`,
      catalog: `blake3:${hex}`,
    };
  });

describe('a log past 256 days (full tiles)', () => {
  it('parses every tile path the log writes, full ones included, and reads each tile it names', async () => {
    const key = await generateSignerKey('hub.example/log');
    const signers = [await parseSignerKey(key.signerKey)];
    const store = new MemoryObjectStore();
    // Sizes around the first full tile and past it: 255, 256, 257, then 300 leaves (SYNTHETIC days).
    let size = 0;
    for (const next of [255, 256, 257, 300]) {
      await appendDays(store, syntheticDays(next - size, size), signers);
      size = next;
      const state = await checkLog(store, key.verifierKey);
      expect(state.size).toBe(size);
      const tiles = tilesForSize(size);
      for (const t of tiles) expect(parseTilePath(tilePath(t)), tilePath(t)).toEqual(t);
      const full = tiles.filter((t) => t.width === 256).map(tilePath);
      expect(full).toEqual(size >= 256 ? ['tile/0/000', 'tile/entries/000'] : []);
    }
    const state = await readLogState(store);
    const entries = await readLogEntries(store, state);
    const all = entries.map(leafHash);
    // The full level-0 tile is the first 256 leaf hashes; the level-1 tile above it is their Merkle root.
    const full = parseTilePath('tile/0/000');
    expect(full).toEqual({ level: 0, n: 0, width: 256 });
    expect(await readTile(store, state, full!)).toEqual(hashTileBytes(all, { level: 0, n: 0, width: 256 }));
    expect(await readTile(store, state, parseTilePath('tile/1/000.p/1')!)).toEqual(treeHash(all, 0, 256));
    expect(parseBundleCount(await readTile(store, state, parseTilePath('tile/entries/000')!))).toBe(256);
    expect(parseBundleCount(await readTile(store, state, parseTilePath('tile/entries/001.p/44')!))).toBe(44);
    // Still refused: a `.p/256` suffix (a full tile has none) and a full tile beyond the tree.
    expect(parseTilePath('tile/entries/000.p/256')).toBeUndefined();
    expect(await readTile(store, state, parseTilePath('tile/0/001')!)).toBeUndefined();
  });
});

function parseBundleCount(bytes: Uint8Array | undefined): number {
  let n = 0;
  for (let at = 0; bytes && at < bytes.byteLength; n++) at += 2 + (((bytes[at] as number) << 8) | (bytes[at + 1] as number));
  return n;
}
