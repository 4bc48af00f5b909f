// Bundles of any size (issue 39, design 10.3): the v2 format lists its objects a line at a time in `objects.jsonl`
// (read back in steps of one read buffer), a v1 bundle (the object list inside bundle.json, flat `objects/<hex>`)
// still imports, a damaged or missing object or a damaged list is refused with one line naming it before anything is
// switched, an interrupted import resumes, and a day the configured store serves from its pages is not loaded whole.
// The index: 600 SYNTHETIC models built with their index pages, bundled from a running hub over HTTP.
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE_FORMAT_V1, BUNDLE_OBJECTS_FILE, readArchive } from '@hub/core-index';
import { syntheticId } from '@hub/core-index/testing';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore, objectFile } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, bundleImport } from '../src/bundle.js';
import { LIST_READ_BYTES } from '../src/bundle-objects.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';
import { LOAD_PACK_FILE, VERIFIED_REF, verifyStore } from '../src/verify.js';
import { bundledSyntheticDay } from './bundle-day.js';

const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const N = 600;

const started: RunningHub[] = [];
afterAll(async () => {
  for (const h of started.reverse()) await h.close();
});

let built: { catalog: string; pages: string };
let bundle: string;
let lines: Array<{ address: string; kind: string; media_type: string }>;

beforeAll(async () => {
  ({ built, bundle } = await bundledSyntheticDay(N, 'bundle-format', tmp, started));
  const text = await readFile(path.join(bundle, BUNDLE_OBJECTS_FILE), 'utf8');
  lines = text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
}, 300_000);

/** A copy of the bundle to damage. */
async function copyOfBundle(): Promise<string> {
  const copy = path.join(await tmp('bundle-format-copy-'), 'day');
  await cp(bundle, copy, { recursive: true });
  return copy;
}

const objectPath = (dir: string, address: string) => objectFile(path.join(dir, 'objects'), address);

/** How many objects a data folder holds. */
async function storedObjects(dataDir: string): Promise<number> {
  let n = 0;
  for await (const _ of new FsObjectStore(dataDir).addresses()) n++;
  return n;
}

async function lookUp(dataDir: string, config: Record<string, unknown> = {}) {
  const hub = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: quiet, config: { demo: false, ...config } });
  started.push(hub);
  for (const i of [0, 5, N - 1]) {
    const r = await fetch(`${hub.url}/api/models/${syntheticId(i)}`);
    expect(r.status, syntheticId(i)).toBe(200);
    expect((await r.json()).id).toBe(syntheticId(i));
  }
  await hub.close();
  started.splice(started.indexOf(hub), 1);
}

describe('a v2 bundle', () => {
  it('lists every object a line in objects.jsonl, a list larger than one read buffer, and imports it whole', async () => {
    const named = JSON.parse(await readFile(path.join(bundle, 'bundle.json'), 'utf8'));
    expect(named.format).toBe('model-hub.bundle/v2');
    expect(named.objects).toMatchObject({ file: BUNDLE_OBJECTS_FILE, count: lines.length });
    expect((await stat(path.join(bundle, BUNDLE_OBJECTS_FILE))).size).toBeGreaterThan(3 * LIST_READ_BYTES);
    expect(new Set(lines.map((l) => l.address)).size).toBe(lines.length);
    expect(lines.map((l) => l.address)).toContain(built.pages);

    const data = await tmp('bundle-format-b-');
    const result = await bundleImport(bundle, data);
    expect(result).toMatchObject({ catalog: built.catalog, objects: lines.length, objectsNew: lines.length });
    // every listed object is there (the folder's own transparency log adds its tile and entries beside them)
    expect(await new FsObjectStore(data).missing(lines.map((l) => l.address as `blake3:${string}`))).toEqual([]);
    expect((await verifyStore(new FsObjectStore(data))).faults).toEqual([]);
    await lookUp(data);
  });
});

describe('a v1 bundle (the object list inside bundle.json, objects/<hex>), as earlier hubs wrote them', () => {
  it('still imports and serves', async () => {
    const v1 = path.join(await tmp('bundle-format-v1-'), 'day');
    await mkdir(path.join(v1, 'objects'), { recursive: true });
    for (const l of lines) await cp(objectPath(bundle, l.address), path.join(v1, 'objects', l.address.slice('blake3:'.length)));
    const { objects: _list, ...head } = JSON.parse(await readFile(path.join(bundle, 'bundle.json'), 'utf8'));
    await writeFile(path.join(v1, 'bundle.json'), JSON.stringify({ ...head, format: BUNDLE_FORMAT_V1, objects: lines }, null, 1));

    const data = await tmp('bundle-format-v1-data-');
    const result = await bundleImport(v1, data);
    expect(result).toMatchObject({ catalog: built.catalog, objects: lines.length, objectsNew: lines.length });
    expect((await verifyStore(new FsObjectStore(data))).faults).toEqual([]);
    await lookUp(data);
  });
});

describe('a damaged bundle is refused with one line naming what is wrong, and nothing is taken', () => {
  // the last model object listed: objects before it would be taken by an import that checked as it went
  const model = () => lines.filter((l) => l.kind === 'model-hub.model').at(-1)?.address as string;

  async function refused(dir: string, pattern: RegExp) {
    const data = await tmp('bundle-format-refused-');
    const error = await bundleImport(dir, data).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(BundleError);
    expect(error?.message).toMatch(pattern);
    expect(error?.message).not.toContain('\n');
    // checked before anything is taken: no object put, no ref written
    expect(await storedObjects(data)).toBe(0);
    expect(existsSync(path.join(data, 'refs', 'current'))).toBe(false);
  }

  it('an object whose bytes do not hash to its address', async () => {
    const copy = await copyOfBundle();
    const file = objectPath(copy, model());
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"model-hub.model"', '"model-hub.modem"'));
    await refused(copy, new RegExp(`^object ${model()}: its bytes hash to blake3:[0-9a-f]{64}; the bundle is damaged$`));
  });

  it('an object listed but missing', async () => {
    const copy = await copyOfBundle();
    await rm(objectPath(copy, model()));
    await refused(copy, new RegExp(`^object ${model()} is listed but .*${model().slice(7)} is missing$`));
  });

  it('a list cut short, a list line edited, a list longer than bundle.json says', async () => {
    const copy = await copyOfBundle();
    const list = path.join(copy, BUNDLE_OBJECTS_FILE);
    const text = await readFile(list, 'utf8');
    const all = text.trimEnd().split('\n');
    await writeFile(list, `${all.slice(0, -1).join('\n')}\n`);
    await refused(
      copy,
      new RegExp(`^${BUNDLE_OBJECTS_FILE}: ${all.length - 1} lines, bundle.json gives ${all.length}; the bundle is damaged$`),
    );
    await writeFile(
      list,
      text.replace(/"address":"blake3:([0-9a-f])/, (_m, c) => `"address":"blake3:${c === 'a' ? 'b' : 'a'}`),
    );
    // the first line's address changed (it still parses): the list's SHA-256 is not the one bundle.json gives
    await refused(
      copy,
      new RegExp(
        `^${BUNDLE_OBJECTS_FILE}: its bytes hash to sha256:[0-9a-f]{64}, bundle.json gives sha256:[0-9a-f]{64}; the bundle is damaged$`,
      ),
    );
    await writeFile(list, text.replace(/"address":"blake3:/, '"address":"blake2:'));
    await refused(copy, new RegExp(`^${BUNDLE_OBJECTS_FILE} line 1: address: .*; the bundle is damaged$`));
    await writeFile(list, `${text}${all[0]}\n`);
    await refused(copy, new RegExp(`^${BUNDLE_OBJECTS_FILE}: more than the ${all.length} lines bundle.json gives; the bundle is damaged$`));
  });

  it('a list with the same number of lines but other bytes (its SHA-256 differs)', async () => {
    const copy = await copyOfBundle();
    const list = path.join(copy, BUNDLE_OBJECTS_FILE);
    const all = (await readFile(list, 'utf8')).trimEnd().split('\n');
    // the same objects in another order: every line and object is sound, the list is not the one bundle.json names
    await writeFile(list, `${[...all].reverse().join('\n')}\n`);
    await refused(
      copy,
      new RegExp(
        `^${BUNDLE_OBJECTS_FILE}: its bytes hash to sha256:[0-9a-f]{64}, bundle.json gives sha256:[0-9a-f]{64}; the bundle is damaged$`,
      ),
    );
  });
});

describe('an interrupted import', () => {
  it('has switched nothing, and run again takes the rest and switches', async () => {
    const data = await tmp('bundle-format-resume-');
    // Interrupted once the first group of objects is stored (as a kill there would leave it: puts are durable).
    const interrupted = await bundleImport(bundle, data, {
      progress: (what) => {
        if (what.startsWith('stored ')) throw new Error('interrupted');
      },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(interrupted?.message).toBe('interrupted');
    const before = await storedObjects(data);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(lines.length);
    expect(existsSync(path.join(data, 'refs', 'current'))).toBe(false);
    expect((await readArchive(new FsObjectStore(data))).days).toEqual([]);

    const result = await bundleImport(bundle, data);
    expect(result).toMatchObject({ catalog: built.catalog, objects: lines.length, objectsNew: lines.length - before });
    expect(await new FsObjectStore(data).readRef('current')).toBe(built.catalog);
    expect((await verifyStore(new FsObjectStore(data))).faults).toEqual([]);
    await lookUp(data);
  });
});

describe('how the imported day is prepared for its first start follows the configured index store', () => {
  it('a day served from its pages (indexStore paged) is opened from them, not loaded whole; auto loads this small day whole', async () => {
    const paged = await tmp('bundle-format-paged-');
    await bundleImport(bundle, paged, { indexStore: 'paged' });
    expect(existsSync(path.join(paged, LOAD_PACK_FILE))).toBe(false);
    expect(await new FsObjectStore(paged).readRef(VERIFIED_REF)).toBeUndefined();
    await lookUp(paged, { indexStore: 'paged' });

    const whole = await tmp('bundle-format-whole-');
    await bundleImport(bundle, whole);
    expect(existsSync(path.join(whole, LOAD_PACK_FILE))).toBe(true);
    expect(await new FsObjectStore(whole).readRef(VERIFIED_REF)).toBe(built.catalog);
  });

  it("a paged day whose pages root is not its catalog's is refused before the switch", async () => {
    const copy = await copyOfBundle();
    // every object and the list sound, but the archive day's pages address names a model object, not a pages root
    const named = JSON.parse(await readFile(path.join(copy, 'bundle.json'), 'utf8'));
    const model = lines.find((l) => l.kind === 'model-hub.model')?.address as string;
    named.archive.days[0].pages = model;
    await writeFile(path.join(copy, 'bundle.json'), JSON.stringify(named));
    const data = await tmp('bundle-format-badpages-');
    await expect(bundleImport(copy, data, { indexStore: 'paged' })).rejects.toThrow(
      new RegExp(`^archive day ${named.date}: index pages ${model}: `),
    );
    expect(existsSync(path.join(data, 'refs', 'current'))).toBe(false);
  });
});
