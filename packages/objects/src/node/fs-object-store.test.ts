import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, addressOf, canonicalBytes, MemoryObjectStore } from '@hub/core-index';
import { afterAll, describe, expect, it } from 'vitest';
import { objectStoreContract } from '../testing/object-store.contract.js';
import { jsonKind } from './derived-meta.js';
import { FsObjectStore } from './fs-object-store.js';

/** The ObjectStore contract on the filesystem store (and the memory store beside it), then what only a disk has. */
const made: string[] = [];
afterAll(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'hub-fs-store-'));
  made.push(d);
  return d;
};

objectStoreContract('FsObjectStore', async () => new FsObjectStore(await tempDir()));
objectStoreContract('MemoryObjectStore', () => new MemoryObjectStore());

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string) {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(path.relative(dir, p));
    }
  }
  await walk(dir);
  return out;
}

describe('FsObjectStore atomicity', () => {
  it('leaves nothing readable when a write is killed midway', async () => {
    const root = await tempDir();
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'slow-put.mjs');
    // The child writes a large object through a slowed-down writeFile and is SIGKILLed once the temp file exists.
    const proc = spawn(process.execPath, [child, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    const address: string = await new Promise((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (d) => {
        out += d;
        const m = /writing (blake3:[0-9a-f]{64})/.exec(out);
        if (m) resolve(m[1] as string);
      });
      proc.on('exit', () => reject(new Error(`child exited early: ${out}`)));
    });
    // Wait until a temp file is on disk, then kill.
    for (let i = 0; i < 200; i++) {
      if ((await listFiles(root)).some((f) => path.basename(f).startsWith('.tmp-'))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    proc.kill('SIGKILL');
    await new Promise((r) => proc.on('close', r));
    const store = new FsObjectStore(root);
    expect(await store.get(address as `blake3:${string}`)).toBeUndefined();
    expect(await store.has(address as `blake3:${string}`)).toBe(false);
    expect((await store.list({})).items).toEqual([]);
    const files = await listFiles(root);
    // Only temp files (never read) may remain; no file under an object's name.
    expect(files.filter((f) => !path.basename(f).startsWith('.tmp-') && !f.endsWith('.meta'))).toEqual([]);
    // A retry writes the object whole.
    const bytes = new Uint8Array(1024).fill(7);
    const { meta } = await store.put(bytes, { kind: 'k', mediaType: 'application/octet-stream' });
    expect((await store.get(meta.id as `blake3:${string}`))?.bytes.byteLength).toBe(1024);
  });
});

describe('FsObjectStore grouped puts', () => {
  it('commits the puts of one turn together: each resolves, the same bytes twice are written once', async () => {
    const root = await tempDir();
    const store = new FsObjectStore(root);
    const bytes = Array.from({ length: 50 }, (_, i) => new TextEncoder().encode(`object ${i}`));
    const results = await Promise.all([
      ...bytes.map((b) => store.put(b, { kind: 'k', mediaType: 'text/plain' })),
      store.put(bytes[0] as Uint8Array, { kind: 'other', mediaType: 'text/plain' }),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(50);
    expect(results[50]).toMatchObject({ created: false, meta: { id: results[0]?.meta.id, kind: 'k' } });
    const files = await listFiles(root);
    expect(files.filter((f) => /^[0-9a-f]{64}$/.test(path.basename(f)))).toHaveLength(50);
    expect(files.filter((f) => f.endsWith('.meta'))).toHaveLength(50);
    expect(files.filter((f) => path.basename(f).startsWith('.tmp-'))).toEqual([]);
    // A new store (nothing cached) answers them as stored.
    const again = new FsObjectStore(root);
    const second = await Promise.all(bytes.map((b) => again.put(b, { kind: 'k', mediaType: 'text/plain' })));
    expect(second.every((r) => !r.created)).toBe(true);
    // A stored object put twice in one turn: both answered as stored, with the metadata it was stored with.
    const third = new FsObjectStore(root);
    const twice = await Promise.all([
      third.put(bytes[1] as Uint8Array, { kind: 'other', mediaType: 'text/plain' }),
      third.put(bytes[1] as Uint8Array, { kind: 'another', mediaType: 'text/plain' }),
    ]);
    for (const r of twice) expect(r).toMatchObject({ created: false, meta: { id: results[1]?.meta.id, kind: 'k' } });
  });

  it('rejects every put of a group that cannot be written (none hangs)', async () => {
    const root = await tempDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(root, 'objects'), 'not a folder');
    const store = new FsObjectStore(root);
    const puts = [1, 2, 3].map((i) => store.put(new TextEncoder().encode(`x${i}`), { kind: 'k', mediaType: 'text/plain' }));
    for (const p of puts) await expect(p).rejects.toThrow();
  });
});

describe('FsObjectStore metadata derived from the object (no .meta file)', () => {
  const json = (v: unknown) => canonicalBytes(v);
  it('writes a JSON object carrying its own kind as one file and reads its metadata back from it', async () => {
    const root = await tempDir();
    const store = new FsObjectStore(root);
    const before = Date.now();
    // in a group (the bulk path) and alone (the small path)
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.put(json({ kind: 'model-hub.index-page', entries: { a: [i, '}"'] } }), {
          kind: 'model-hub.index-page',
          mediaType: 'application/json',
        }),
      ),
    );
    const one = await store.put(json({ catalog: 'x', kind: 'model-hub.catalog' }), {
      kind: 'model-hub.catalog',
      mediaType: 'application/json',
    });
    const files = await listFiles(root);
    expect(files.filter((f) => f.endsWith('.meta'))).toEqual([]);
    expect(files.filter((f) => /^[0-9a-f]{64}$/.test(path.basename(f)))).toHaveLength(41);
    const again = new FsObjectStore(root);
    for (const { meta } of [...many, one]) {
      const id = meta.id as Address;
      const stored = await again.meta(id);
      expect(stored).toMatchObject({ id, kind: meta.kind, media_type: 'application/json', size: meta.size, filename: null });
      expect(stored?.created_at_millis).toBeGreaterThanOrEqual(before - 1000);
      expect((await new FsObjectStore(root).get(id))?.meta).toEqual(stored);
    }
    expect((await again.list({ kind: 'model-hub.catalog' })).items.map((m) => m.id)).toEqual([one.meta.id]);
    expect((await again.list({ kind: 'model-hub.index-page' })).items).toHaveLength(40);
    // a second put of a stored object answers its (derived) metadata, not the new put's kind
    const dup = await again.put(json({ catalog: 'x', kind: 'model-hub.catalog' }), { kind: 'other', mediaType: 'application/json' });
    expect(dup).toMatchObject({ created: false, meta: { kind: 'model-hub.catalog' } });
  });

  it('keeps a .meta file for what cannot be derived: another kind, another media type, a file name', async () => {
    const root = await tempDir();
    const store = new FsObjectStore(root);
    const puts = [
      store.put(json({ kind: 'a', n: 1 }), { kind: 'b', mediaType: 'application/json' }),
      store.put(json({ kind: 'a', n: 2 }), { kind: 'a', mediaType: 'text/plain' }),
      store.put(json({ kind: 'a', n: 3 }), { kind: 'a', mediaType: 'application/json', filename: 'x.json' }),
      store.put(json({ n: 4, sub: { kind: 'a' } }), { kind: 'a', mediaType: 'application/json' }),
      store.put(new TextEncoder().encode('{"kind":"a\\u0062"}'), { kind: 'ab', mediaType: 'application/json' }),
    ];
    const metas = (await Promise.all(puts)).map((r) => r.meta);
    expect((await listFiles(root)).filter((f) => f.endsWith('.meta'))).toHaveLength(5);
    const again = new FsObjectStore(root);
    for (const meta of metas) expect(await again.meta(meta.id as Address)).toEqual(meta);
  });

  it('reads a store written with a .meta file for every object as before', async () => {
    const root = await tempDir();
    const bytes = json({ kind: 'model-hub.model', id: 'org/m' });
    const id = addressOf(bytes);
    const hex = id.slice('blake3:'.length);
    const dir = path.join(root, 'objects', hex.slice(0, 2));
    const meta = {
      id,
      kind: 'model-hub.model',
      media_type: 'application/json',
      size: bytes.byteLength,
      created_at_millis: 1234,
      filename: null,
    };
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `${hex}.meta`), JSON.stringify(meta));
    await writeFile(path.join(dir, hex), bytes);
    const store = new FsObjectStore(root);
    expect(await store.meta(id)).toEqual(meta);
    expect((await store.get(id))?.meta).toEqual(meta);
    expect((await store.list({ kind: 'model-hub.model' })).items).toEqual([meta]);
    expect(await store.put(bytes, { kind: 'model-hub.model', mediaType: 'application/json' })).toEqual({ meta, created: false });
  });
});

describe('jsonKind', () => {
  const k = (s: string) => jsonKind(new TextEncoder().encode(s));
  it('reads the top-level kind only', () => {
    expect(k('{"kind":"a"}')).toBe('a');
    expect(k(' { "z" : [1,{"kind":"no"}], "kind" : "yes" } ')).toBe('yes');
    expect(k('{"a":"}\\"{","kind":"b"}')).toBe('b');
    expect(k('{"a":{"kind":"x"}}')).toBeUndefined();
    expect(k('{"a":"kind","b":"c"}')).toBeUndefined();
    expect(k('{"kind":1}')).toBeUndefined();
    expect(k('{"kind":"a\\"b"}')).toBeUndefined();
    expect(k('["kind","a"]')).toBeUndefined();
    expect(k('{"kind":"a')).toBeUndefined();
    expect(k('')).toBeUndefined();
  });
});

describe('FsObjectStore.missing (a build checks what it reuses, many at once)', () => {
  it('names exactly the addresses whose files are gone, in their order, as `has` answers for each', async () => {
    const dir = await tempDir();
    const store = new FsObjectStore(dir);
    const values = [0, 1, 2, 3].map((i) => canonicalBytes({ kind: 'model-hub.model', n: i }));
    const ids = (await Promise.all(values.map((b) => store.put(b, { kind: 'model-hub.model', mediaType: 'application/json' })))).map(
      (r) => r.meta.id as Address,
    );
    const unknown = addressOf(new TextEncoder().encode('never put'));
    // lost behind the store's back (a fresh store: nothing of it cached)
    await rm(path.join(dir, 'objects', (ids[2] as string).slice(7, 9), (ids[2] as string).slice(7)));
    const fresh = new FsObjectStore(dir);
    const asked = [ids[3], unknown, ids[0], ids[2], 'blake3:not-an-address', ids[1]] as Address[];
    expect(await fresh.missing(asked)).toEqual([unknown, ids[2], 'blake3:not-an-address']);
    for (const a of asked) expect(await fresh.has(a)).toBe(!(await fresh.missing([a])).length);
    // the listing a build takes when it starts answers the same, without a call to the disk per address
    const listed = await fresh.listing();
    expect(listed.missing(asked)).toEqual([unknown, ids[2], 'blake3:not-an-address']);
    // it is of its moment: an object another process put after it counts as missing (a build then puts it again,
    // harmlessly), one removed after it as stored
    const other = new FsObjectStore(dir);
    const later = (
      await other.put(canonicalBytes({ kind: 'model-hub.model', n: 9 }), { kind: 'model-hub.model', mediaType: 'application/json' })
    ).meta.id as Address;
    await rm(path.join(dir, 'objects', (ids[0] as string).slice(7, 9), (ids[0] as string).slice(7)));
    expect(listed.missing([later, ids[0] as Address])).toEqual([later]);
    expect((await fresh.listing()).missing([later, ids[0] as Address])).toEqual([ids[0]]);
    // an empty data folder lists nothing
    expect((await new FsObjectStore(await tempDir()).listing()).missing([ids[1] as Address])).toEqual([ids[1]]);
  });
});
