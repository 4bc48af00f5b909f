// Issue 39 ("an index of any size"): a bundle of a large index (10,000 SYNTHETIC models, built with its index pages)
// is created from a running hub over HTTP, imported into a fresh data folder, and served from there: the imported day
// keeps its pages (every page carried, `hub index verify` finds no fault), and a look-up, a file listing and a search
// answer from the imported folder as from the hub that built it.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readArchive } from '@hub/core-index';
import { syntheticId } from '@hub/core-index/testing';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleImport } from '../src/bundle.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';
import { bundledSyntheticDay } from './bundle-day.js';

const run = promisify(execFile);
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const N = 10_000;

const started: RunningHub[] = [];
afterAll(async () => {
  for (const h of started.reverse()) await h.close();
});

let hubA: RunningHub;
let built: { catalog: string; pages: string };
let bundle: string;

beforeAll(async () => {
  ({ hubA, built, bundle } = await bundledSyntheticDay(N, 'bundle-large', tmp, started));
}, 600_000);

describe(`a bundle of an index of ${N.toLocaleString('en')} SYNTHETIC models`, () => {
  it('imports into a fresh folder with every index page, verifies, and serves look-ups there', async () => {
    const dataB = await tmp('bundle-large-b-');
    // served from its pages, as a large index is: the import also makes the answers of its cold look-ups
    const result = await bundleImport(bundle, dataB, { indexStore: 'paged' });
    expect(result.catalog).toBe(built.catalog);
    // Every object of the day: its catalog, model and source objects, and its index pages, all new to the folder.
    expect(result.objectsNew).toBe(result.objects);
    expect(result.objects).toBeGreaterThan(N * 2);
    const day = (await readArchive(new FsObjectStore(dataB))).days[0];
    expect(day?.pages).toBe(built.pages);
    const verified = await run(process.execPath, [CLI, 'index', 'verify', '--data', dataB], { timeout: 300_000 });
    expect(verified.stdout).toMatch(/ 0 faults/);

    const made = await readFile(path.join(dataB, 'made-answers'));
    const madeHead = JSON.parse(made.subarray(12, 12 + made.readUInt32LE(8)).toString()) as { pages: string; records: number };
    expect(madeHead).toMatchObject({ pages: built.pages, records: N });

    const hubB = await startServer({
      dataDir: dataB,
      port: 0,
      host: '127.0.0.1',
      logger: quiet,
      config: { demo: false, indexStore: 'paged' },
    });
    started.push(hubB);
    for (const i of [0, 5, 4_321, N - 1]) {
      const [a, b] = await Promise.all([hubA, hubB].map((h) => fetch(`${h.url}/api/models/${syntheticId(i)}`)));
      expect(b?.status, syntheticId(i)).toBe(200);
      const model = await (b as Response).json();
      expect(model.id).toBe(syntheticId(i));
      expect(model).toEqual(await (a as Response).json());
    }
    const search = await (await fetch(`${hubB.url}/api/models?search=${encodeURIComponent(syntheticId(4_321))}`)).json();
    expect(search.map((m: { id: string }) => m.id)).toContain(syntheticId(4_321));
    expect((await fetch(`${hubB.url}/api/models/synthetic-org-1/no-such-model`)).status).toBe(404);
  }, 900_000);
});
