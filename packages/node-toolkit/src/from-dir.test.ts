// buildFromDir after issue 18's build work: the same answers as before (catalog addresses pinned from the build
// before the change), a rebuild writes only what changed, and the rebuild cache never serves a stale SHA-256.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  type CatalogObject,
  LOG_TILE_KIND,
  MEMO_CHUNK_KIND,
  MEMO_KIND,
  type ModelObject,
  PAGE_KIND,
  silentLogger,
} from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTreeDir } from './demo.js';
import { buildFromDir, ChangeFeedError, changeFeedPaths } from './from-dir.js';
import { tempDirs } from './testing/temp-dirs.js';

const tmp = tempDirs(afterAll);

const SOURCES = [{ name: 's', url: 'http://m.test/{id}/{path}' }];
/** A whole-second modification time (2026-01-01) given to the config files of the rebuild tree. */
const MTIME = 1_767_225_600;

/** A SYNTHETIC tree: 30 models in 3 owners, a nested file, a file named like a GGUF quant that is not GGUF, one facts file. */
function writeTree(tree: string) {
  for (let i = 0; i < 30; i++) {
    const dir = path.join(tree, `org-${i % 3}`, `model-${i}`);
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ i }));
    writeFileSync(path.join(dir, 'sub', 'README.md'), `# model-${i}\nSYNTHETIC\n`);
    writeFileSync(path.join(dir, `model-${i}-Q4_K_M.gguf`), `SYNTHETIC ${i}`);
    if (i === 7) {
      writeFileSync(
        path.join(dir, '.hub-facts.json'),
        JSON.stringify({ license: 'mit', pipeline_tag: 'text-classification', tags: ['x'] }),
      );
    }
  }
}

/** Object files in a data folder (bytes files, not metadata or temp files). */
function objectFiles(data: string): Set<string> {
  const out = new Set<string>();
  const root = path.join(data, 'objects');
  for (const shard of readdirSync(root)) {
    for (const name of readdirSync(path.join(root, shard))) if (/^[0-9a-f]{64}$/.test(name)) out.add(`blake3:${name}`);
  }
  return out;
}

async function readJson<T>(store: FsObjectStore, address: string): Promise<T> {
  const got = await store.get(address as Address);
  if (!got) throw new Error(`missing ${address}`);
  return JSON.parse(new TextDecoder().decode(got.bytes)) as T;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('buildFromDir answers', () => {
  it('builds the same catalogs as before the build work (addresses pinned from the previous builder)', async () => {
    // Computed with the from-dir builder of main before issue 18's build work (async reads, a GGUF parse attempt for
    // every .gguf name, the facts file tried in every folder) over the same trees and date.
    const tree = await tmp('hub-fromdir-tree-');
    writeTree(tree);
    const a = await buildFromDir(new FsObjectStore(await tmp('hub-fromdir-data-')), { dir: tree, sources: SOURCES, date: '2026-11-22' });
    expect(a.catalog).toBe('blake3:5b9ff94980010eaf0d84164966cefc1904adc8f7e1fe5cdafd2d3ae243b81ded');
    expect([a.models, a.files]).toEqual([30, 90]);
    // The demo tree holds a real GGUF file: its header facts are still read.
    const demoStore = new FsObjectStore(await tmp('hub-fromdir-demo-'));
    const demo = await buildFromDir(demoStore, {
      dir: demoTreeDir(),
      sources: [{ name: 'demo', url: 'http://m.test/{id}/{path}' }],
      date: '2026-11-22',
    });
    expect(demo.catalog).toBe('blake3:b3feef1281deff4d7fd6ceab42b769efbb1cf416f6681b1ec4b63be51930cc7e');
    const catalog = await readJson<CatalogObject>(demoStore, demo.catalog);
    const tiny = await readJson<ModelObject>(demoStore, catalog.objects['demo/tiny-llama-2-GGUF']?.model as string);
    expect(tiny.facts.gguf?.[0]?.architecture).toBe('llama');
  });
});

describe('rebuilds with the rebuild cache', () => {
  let tree: string;
  let data: string;
  let cacheFile: string;
  let first: Awaited<ReturnType<typeof buildFromDir>>;
  beforeAll(async () => {
    tree = await tmp('hub-rebuild-tree-');
    data = await tmp('hub-rebuild-data-');
    cacheFile = path.join(data, 'cache', 'from-dir.json');
    writeTree(tree);
    // Whole-second modification times, so a test can put one back exactly (`touch -r`).
    for (const owner of readdirSync(tree)) {
      for (const model of readdirSync(path.join(tree, owner))) utimesSync(path.join(tree, owner, model, 'config.json'), MTIME, MTIME);
    }
    // Entries for files changed within 2 s of their read are not kept (coarse timestamps): let the tree age.
    await new Promise((r) => setTimeout(r, 2100));
    first = await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-22', cacheFile });
  });

  it('building the same tree again writes no object, reads no file, and gives the same catalog', async () => {
    const before = objectFiles(data);
    // 30 model and source objects, the catalog, the transparency log's level-0 tile and entry bundle, and the build
    // memo (its root, one chunk of models and one of the rows' places in the catalog)
    expect(before.size).toBe(30 * 2 + 1 + 2 + 3);
    const read: string[] = [];
    const again = await buildFromDir(new FsObjectStore(data), {
      dir: tree,
      sources: SOURCES,
      date: '2026-11-22',
      cacheFile,
      log: { ...silentLogger, info: (o: object) => read.push(JSON.stringify(o)) },
    });
    expect(again.catalog).toBe(first.catalog);
    expect(objectFiles(data)).toEqual(before);
    // every one of the 90 files came from the cache
    expect(read).toContain(JSON.stringify({ files: 90, reused: 90 }));
  });

  it('a 1-model change writes exactly that model and source object and the new catalog', async () => {
    const before = objectFiles(data);
    const changed = path.join(tree, 'org-1', 'model-4', 'config.json');
    writeFileSync(changed, JSON.stringify({ i: 4, changed: true }));
    const store = new FsObjectStore(data);
    const result = await buildFromDir(store, { dir: tree, sources: SOURCES, date: '2026-11-23', cacheFile });
    const kinds = await Promise.all(
      [...objectFiles(data)].filter((a) => !before.has(a)).map(async (a) => [a, (await store.meta(a as Address))?.kind] as const),
    );
    // The day's new leaf grew the log's level-0 tile and entry bundle: two new objects of the log beside the index's.
    expect(kinds.filter(([, k]) => k === LOG_TILE_KIND)).toHaveLength(2);
    // and the build's memo for the next build: its root, its chunk of models and its chunk of the rows' places
    // (build-memo.ts)
    expect(kinds.filter(([, k]) => k === MEMO_KIND || k === MEMO_CHUNK_KIND)).toHaveLength(3);
    const added = kinds.filter(([, k]) => k !== LOG_TILE_KIND && k !== MEMO_KIND && k !== MEMO_CHUNK_KIND).map(([a]) => a);
    const catalog = await readJson<CatalogObject>(store, result.catalog);
    const entry = catalog.objects['org-1/model-4'];
    expect(added.sort()).toEqual([result.catalog, entry?.model, ...(entry?.sources ?? [])].sort());
    expect(added).toHaveLength(3);
    const model = await readJson<ModelObject>(store, entry?.model as string);
    expect(model.files.find((f) => f.path === 'config.json')?.sha256).toBe(sha256(changed));
  });

  it('a file rewritten with the same size and its old modification time is hashed again (no stale SHA-256)', async () => {
    const file = path.join(tree, 'org-2', 'model-5', 'config.json');
    const old = statSync(file);
    expect(old.mtimeMs).toBe(MTIME * 1000);
    const bytes = readFileSync(file);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 2] = (flipped[flipped.length - 2] as number) ^ 1; // {"i":5} → {"i":4}, same size
    writeFileSync(file, flipped);
    utimesSync(file, MTIME, MTIME); // `touch -r`: size and mtime as before, only the change time differs
    expect([statSync(file).size, statSync(file).mtimeMs]).toEqual([old.size, old.mtimeMs]);
    const store = new FsObjectStore(data);
    const result = await buildFromDir(store, { dir: tree, sources: SOURCES, date: '2026-11-24', cacheFile });
    const catalog = await readJson<CatalogObject>(store, result.catalog);
    const model = await readJson<ModelObject>(store, catalog.objects['org-2/model-5']?.model as string);
    expect(model.files.find((f) => f.path === 'config.json')?.sha256).toBe(sha256(file));
    expect(sha256(file)).not.toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('a damaged cache file is ignored (every file hashed, same answers)', async () => {
    const text = readFileSync(cacheFile, 'utf8');
    // Point one file at another hash without fixing the checksum line.
    const damaged = text.replace(/\["config.json",(\d+),"[^"]*","([0-9a-f]{64})"/, (m, _s, h) => m.replace(h, '0'.repeat(64)));
    expect(damaged).not.toBe(text);
    writeFileSync(cacheFile, damaged);
    const store = new FsObjectStore(data);
    const result = await buildFromDir(store, { dir: tree, sources: SOURCES, date: '2026-11-25', cacheFile });
    const catalog = await readJson<CatalogObject>(store, result.catalog);
    const model = await readJson<ModelObject>(store, catalog.objects['org-0/model-0']?.model as string);
    expect(model.files.find((f) => f.path === 'config.json')?.sha256).toBe(sha256(path.join(tree, 'org-0', 'model-0', 'config.json')));
  });
});

describe('the rebuild cache as a stream', () => {
  it('a cache of the first format (one JSON document) is still read: an upgrade hashes nothing again', async () => {
    const tree = await tmp('hub-cache-v1-tree-');
    const data = await tmp('hub-cache-v1-data-');
    writeTree(tree);
    await new Promise((r) => setTimeout(r, 2100));
    const cacheFile = path.join(data, 'cache', 'from-dir.json');
    // as the first format recorded each file: [size, mtimeNs, ctimeNs, ino, dev, sha256, gguf]; one hash marked, so
    // its use shows (a real cache holds the file's own)
    const entries: Record<string, unknown[]> = {};
    for (const owner of readdirSync(tree))
      for (const model of readdirSync(path.join(tree, owner)))
        for (const rel of ['config.json', 'sub/README.md', `${model}-Q4_K_M.gguf`]) {
          const file = path.join(tree, owner, model, rel);
          const st = statSync(file, { bigint: true });
          const marked = owner === 'org-0' && model === 'model-0' && rel === 'config.json';
          entries[`${owner}/${model}/${rel}`] = [
            Number(st.size),
            String(st.mtimeNs),
            String(st.ctimeNs),
            String(st.ino),
            String(st.dev),
            marked ? 'a'.repeat(64) : sha256(file),
            null,
          ];
        }
    const body = JSON.stringify({ root: tree, entries });
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, `hub.from-dir-cache/v1 ${createHash('sha256').update(body).digest('hex')}\n${body}`);
    const read: string[] = [];
    const store = new FsObjectStore(data);
    const result = await buildFromDir(store, {
      dir: tree,
      sources: SOURCES,
      date: '2026-11-22',
      cacheFile,
      log: { ...silentLogger, info: (o: object) => read.push(JSON.stringify(o)) },
    });
    expect(read).toContain(JSON.stringify({ files: 90, reused: 90 }));
    const catalog = await readJson<CatalogObject>(store, result.catalog);
    const model = await readJson<ModelObject>(store, catalog.objects['org-0/model-0']?.model as string);
    expect(model.files.find((f) => f.path === 'config.json')?.sha256).toBe('a'.repeat(64));
    // and it is written again in the second format, one line a folder
    expect(readFileSync(cacheFile, 'utf8').split('\n')).toHaveLength(1 + 1 + 30 + 1 + 1);
  });

  it('a reused object lost from the data folder is written again by the next build (checked against its listing)', async () => {
    const tree = await tmp('hub-lost-tree-');
    const data = await tmp('hub-lost-data-');
    writeTree(tree);
    const first = await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-22' });
    const model = (await readJson<CatalogObject>(new FsObjectStore(data), first.catalog)).objects['org-1/model-4']?.model as string;
    const file = path.join(data, 'objects', model.slice(7, 9), model.slice(7));
    rmSync(file);
    const store = new FsObjectStore(data);
    const next = await buildFromDir(store, { dir: tree, sources: SOURCES, date: '2026-11-23' });
    expect((await readJson<CatalogObject>(store, next.catalog)).objects['org-1/model-4']?.model).toBe(model);
    expect(statSync(file).isFile()).toBe(true);
  });

  it('index pages lost from the data folder are written again by the next build (checked against its listing)', async () => {
    const tree = await tmp('hub-lost-pages-tree-');
    const data = await tmp('hub-lost-pages-data-');
    writeTree(tree);
    await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-22', pages: true });
    const store = new FsObjectStore(data);
    const pages: string[] = [];
    for (const a of objectFiles(data)) if ((await store.meta(a as Address))?.kind === PAGE_KIND) pages.push(a);
    expect(pages.length).toBeGreaterThan(3);
    const lost = pages.filter((_, i) => i % 3 === 0);
    for (const a of lost) rmSync(path.join(data, 'objects', a.slice(7, 9), a.slice(7)));
    // the next day, nothing changed: the same pages, the lost ones put again
    await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-23', pages: true });
    const after = objectFiles(data);
    for (const a of pages) expect(after.has(a), a).toBe(true);
  });

  it('a build that fails leaves the last cache as it was, and no temp file', async () => {
    const tree = await tmp('hub-cache-fail-tree-');
    const data = await tmp('hub-cache-fail-data-');
    writeTree(tree);
    const cacheFile = path.join(data, 'cache', 'from-dir.json');
    await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-22', cacheFile });
    const before = readFileSync(cacheFile);
    writeFileSync(path.join(tree, 'org-1', 'model-1', 'config.json'), '{"changed":true}');
    const failing = new FsObjectStore(data);
    failing.put = async () => {
      throw new Error('disk full (SYNTHETIC)');
    };
    await expect(buildFromDir(failing, { dir: tree, sources: SOURCES, date: '2026-11-23', cacheFile })).rejects.toThrow(/disk full/);
    expect(readFileSync(cacheFile).equals(before)).toBe(true);
    expect(readdirSync(path.dirname(cacheFile))).toEqual(['from-dir.json']);
  });
});

describe('a change feed (hub index build --from-dir --changed)', () => {
  let tree: string;
  let fed: string;
  let walked: string;
  const cacheOf = (data: string) => path.join(data, 'cache', 'from-dir.json');
  /** The day `date` built into each folder: with the feed `changed` into one, walking the whole tree into the other. */
  const both = async (date: string, changed: string[]) => {
    const a = await buildFromDir(new FsObjectStore(fed), { dir: tree, sources: SOURCES, date, cacheFile: cacheOf(fed), changed });
    const b = await buildFromDir(new FsObjectStore(walked), { dir: tree, sources: SOURCES, date, cacheFile: cacheOf(walked) });
    return { a, b };
  };
  const modelOf = async (data: string, catalog: string, id: string) =>
    readJson<ModelObject>(
      new FsObjectStore(data),
      (await readJson<CatalogObject>(new FsObjectStore(data), catalog)).objects[id]?.model as string,
    );

  beforeAll(async () => {
    tree = await tmp('hub-feed-tree-');
    fed = await tmp('hub-feed-a-');
    walked = await tmp('hub-feed-b-');
    writeTree(tree);
    await new Promise((r) => setTimeout(r, 2100)); // entries of files read within 2 s of a change are not kept
    for (const data of [fed, walked])
      await buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, date: '2026-11-22', cacheFile: cacheOf(data) });
  });

  it('builds the catalog a walk of the whole tree builds: a file changed, a model added, one removed, a facts file', async () => {
    writeFileSync(path.join(tree, 'org-0', 'model-3', 'config.json'), JSON.stringify({ i: 3, changed: true }));
    mkdirSync(path.join(tree, 'org-1', 'model-new'));
    writeFileSync(path.join(tree, 'org-1', 'model-new', 'config.json'), '{"new":true}');
    rmSync(path.join(tree, 'org-2', 'model-5'), { recursive: true });
    writeFileSync(path.join(tree, 'org-1', 'model-10', '.hub-facts.json'), JSON.stringify({ license: 'apache-2.0' }));
    // as a feed gives them: relative and absolute paths, a removed folder, a comment and a blank line
    const changed = changeFeedPaths(tree, [
      '# changed since the last build',
      'org-0/model-3/config.json',
      path.join(tree, 'org-1', 'model-new', 'config.json'),
      'org-2/model-5',
      '',
      'org-1/model-10/.hub-facts.json',
    ]);
    const { a, b } = await both('2026-11-23', changed);
    expect(a.catalog).toBe(b.catalog);
    // 30 models, one removed and one added; 90 files, less the removed model's 3, plus 1 (a facts file is not indexed)
    expect([a.models, a.files]).toEqual([30, 88]);
    expect((await modelOf(fed, a.catalog, 'org-1/model-10')).license).toBe('apache-2.0');
  });

  it('an owner named alone has each of its folders walked again, and one removed whole is gone', async () => {
    rmSync(path.join(tree, 'org-2'), { recursive: true });
    writeFileSync(path.join(tree, 'org-0', 'model-6', 'config.json'), JSON.stringify({ i: 6, changed: true }));
    const { a, b } = await both('2026-11-24', ['org-2', 'org-0']);
    expect(a.catalog).toBe(b.catalog);
    expect(a.models).toBe(21); // org-2 held 9 (model-5 was removed above)
  });

  it('walks only what it names: a change it does not name is not seen until a build without the feed', async () => {
    const file = path.join(tree, 'org-1', 'model-13', 'config.json');
    const before = sha256(file);
    writeFileSync(file, JSON.stringify({ i: 13, unnamed: true }));
    const { a, b } = await both('2026-11-25', ['org-0/model-0']);
    expect(a.catalog).not.toBe(b.catalog);
    expect((await modelOf(fed, a.catalog, 'org-1/model-13')).files.find((f) => f.path === 'config.json')?.sha256).toBe(before);
    expect((await modelOf(walked, b.catalog, 'org-1/model-13')).files.find((f) => f.path === 'config.json')?.sha256).toBe(sha256(file));
    // the next build without a feed walks the whole tree again: the same catalog as the walked folder's
    const again = await buildFromDir(new FsObjectStore(fed), { dir: tree, sources: SOURCES, date: '2026-11-25', cacheFile: cacheOf(fed) });
    expect(again.catalog).toBe(b.catalog);
  });

  it('takes the folders it does not name from the last memo only when the memo is of the cache they are listed in', async () => {
    // a build killed after its memo was written and before its cache was: the memo holds a changed model the cache
    // does not, and the file is then put back as the last whole build had it, so a feed naming nothing is true
    const file = path.join(tree, 'org-1', 'model-16', 'config.json');
    const original = readFileSync(file);
    writeFileSync(file, JSON.stringify({ i: 16, killed: true }));
    const killed = new FsObjectStore(fed);
    const writeRef = killed.writeRef.bind(killed);
    killed.writeRef = async (name: string, value: string) => {
      if (name === 'archive') throw new Error('killed (SYNTHETIC)');
      return writeRef(name, value);
    };
    const date = '2026-11-26';
    const changed = ['org-1/model-16'];
    await expect(buildFromDir(killed, { dir: tree, sources: SOURCES, date, cacheFile: cacheOf(fed), changed })).rejects.toThrow(/killed/);
    writeFileSync(file, original);
    const { a, b } = await both(date, []);
    expect(a.catalog).toBe(b.catalog);
    // and the day after, fed again from the memo and cache of that build
    writeFileSync(path.join(tree, 'org-0', 'model-0', 'config.json'), JSON.stringify({ i: 0, again: true }));
    const next = await both('2026-11-27', ['org-0/model-0/config.json']);
    expect(next.a.catalog).toBe(next.b.catalog);
  });

  it('refuses without a rebuild cache of the tree, and paths that are not under it', async () => {
    const data = await tmp('hub-feed-none-');
    await expect(
      buildFromDir(new FsObjectStore(data), { dir: tree, sources: SOURCES, cacheFile: cacheOf(data), changed: ['org-0/model-0'] }),
    ).rejects.toThrow(ChangeFeedError);
    expect(() => changeFeedPaths(tree, ['org-0/model-0', '../elsewhere/x'])).toThrow(/line 2 of the change feed is not a path under/);
    expect(() => changeFeedPaths(tree, ['/etc/passwd'])).toThrow(ChangeFeedError);
    expect(changeFeedPaths(tree, ['./org-0//model-0/', `${tree}/org-1`])).toEqual(['org-0/model-0', 'org-1']);
  });

  it('takes the real paths of a tree reached through a symbolic link, as a watcher of the real folder reports them', async () => {
    const links = await tmp('hub-feed-link-');
    const link = path.join(links, 'tree');
    symlinkSync(tree, link);
    const real = realpathSync(tree);
    expect(changeFeedPaths(link, [`${real}/org-0/model-0`, `${link}/org-1`, 'org-1/model-1'])).toEqual([
      'org-0/model-0',
      'org-1',
      'org-1/model-1',
    ]);
    expect(() => changeFeedPaths(link, [`${path.dirname(real)}/elsewhere`])).toThrow(/line 1 of the change feed is not a path under/);
    // and a build through the link with such a feed reads the change
    const data = await tmp('hub-feed-link-data-');
    await buildFromDir(new FsObjectStore(data), { dir: link, sources: SOURCES, date: '2026-11-24', cacheFile: cacheOf(data) });
    const file = path.join(tree, 'org-0', 'model-0', 'config.json');
    writeFileSync(file, JSON.stringify({ i: 0, through: 'a link' }));
    const fedBuild = await buildFromDir(new FsObjectStore(data), {
      dir: link,
      sources: SOURCES,
      date: '2026-11-25',
      cacheFile: cacheOf(data),
      changed: changeFeedPaths(link, [`${real}/org-0/model-0/config.json`]),
    });
    expect((await modelOf(data, fedBuild.catalog, 'org-0/model-0')).files.find((f) => f.path === 'config.json')?.sha256).toBe(sha256(file));
  });
});
