import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Address, BuildModelInput } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { MadeAnswersAlongBuild } from '../src/made-answers-build.js';
import { MADE_ANSWERS_FILE, madeAnswersFrom } from '../src/made-answers-file.js';
import { writeMadeAnswers } from '../src/made-answers-writer.js';
import { runCli } from './helpers.js';

/**
 * Issue 39, the build at 1,000,000 models: the made answers made as the build writes its models pages
 * (made-answers-build.ts) are the file the pass over the built day writes, byte for byte, on worker threads or not,
 * on a first day (no last file: the records are moved forward once the slot table's size is known), a day on which
 * 1 % changed (pages reused by the build, pages copied from the last file), an unchanged day and a smaller day (the
 * records moved back); a build that fails leaves the last file whole, and when something fails along the build the
 * pass writes the file after it; `hub index build` makes them so. 1,200 SYNTHETIC models.
 */

const models = syntheticModels(1_200);
const changed = models.map((m, i) => (i % 100 === 7 ? { ...m, license: 'apache-2.0' } : m));
// fewer models than the last file's: a slot table of half the size (2,048 slots, not 4,096), so the records move back
const fewer = changed.slice(0, 1_000);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function folder(name: string): Promise<string> {
  if (name.startsWith('new-')) {
    // a data folder the build makes: the first models page comes before the store made it
    const parent = await folder(name.slice(4));
    return path.join(parent, 'data');
  }
  const d = await mkdtemp(path.join(os.tmpdir(), `hub-made-build-${name}-`));
  dirs.push(d);
  return d;
}

/** Build a day with its answers made along; returns the day and the file's bytes. */
async function buildAlong(dir: string, input: BuildModelInput[], date: string, workers?: number) {
  const store = new FsObjectStore(dir);
  const along = new MadeAnswersAlongBuild(store, dir, { indexStore: 'paged', ...(workers === undefined ? {} : { workers }) });
  const day = await buildWithPages(store, input, date, { onModelsPage: along.onModelsPage });
  expect(await along.finish(day.catalog)).toBe('along');
  return { day, bytes: await readFile(path.join(dir, MADE_ANSWERS_FILE)) };
}

/** The file the pass over the built day writes, every page made again (reuse: false), in another folder. */
async function byThePass(dir: string, catalog: Address): Promise<Buffer> {
  const copy = await folder('pass');
  await cp(dir, copy, { recursive: true });
  await rm(path.join(copy, MADE_ANSWERS_FILE), { force: true });
  const r = await writeMadeAnswers(new FsObjectStore(copy), copy, catalog, { reuse: false, workers: 0 });
  if ('skipped' in r) throw new Error(r.skipped);
  return readFile(path.join(copy, MADE_ANSWERS_FILE));
}

describe('made answers along the build', () => {
  it('are the file the pass over the built day writes, day after day, on worker threads or not', async () => {
    for (const workers of [2, 0]) {
      const dir = await folder(workers === 0 ? `new-w${workers}` : `w${workers}`);
      const days: Array<[BuildModelInput[], string]> = [
        [models, '2026-11-28'],
        [changed, '2026-11-29'],
        [changed, '2026-11-30'],
        [fewer, '2026-12-01'],
      ];
      for (const [input, date] of days) {
        const { day, bytes } = await buildAlong(dir, input, date, workers);
        expect(bytes.equals(await byThePass(dir, day.catalog)), `${date}, ${workers} workers`).toBe(true);
        const reader = madeAnswersFrom(dir)(day.pages, []);
        expect(reader?.get(`hf:info:false:false:${input[907]?.id}`)).toBeDefined();
        // no temp file left
        expect((await readdir(dir)).filter((n) => n.startsWith(`${MADE_ANSWERS_FILE}.`))).toEqual([]);
      }
    }
  }, 300_000);

  it('a build that fails leaves the last file whole and no temp file', async () => {
    const dir = await folder('fail');
    const first = await buildAlong(dir, models, '2026-11-28', 0);
    const store = new FsObjectStore(dir);
    const along = new MadeAnswersAlongBuild(store, dir, { indexStore: 'paged', workers: 0 });
    async function* failing() {
      for (const [i, m] of changed.entries()) {
        if (i === 900) throw new Error('the input broke');
        yield m;
      }
    }
    await expect(buildWithPages(store, failing(), '2026-11-29', { onModelsPage: along.onModelsPage })).rejects.toThrow('the input broke');
    await along.abort();
    expect((await readFile(path.join(dir, MADE_ANSWERS_FILE))).equals(first.bytes)).toBe(true);
    expect((await readdir(dir)).filter((n) => n.startsWith(`${MADE_ANSWERS_FILE}.`))).toEqual([]);
  }, 120_000);

  it('when a page cannot be made along the build, the pass writes the file after it', async () => {
    const dir = await folder('fallback');
    const store = new FsObjectStore(dir);
    const along = new MadeAnswersAlongBuild(store, dir, { indexStore: 'paged', workers: 0 });
    let pages = 0;
    const day = await buildWithPages(store, models, '2026-11-28', {
      // the hook given a page that is not one: the records cannot be made from it
      onModelsPage: (address, bytes, first) =>
        along.onModelsPage(address, ++pages === 40 && bytes ? new TextEncoder().encode('{') : bytes, first),
    });
    expect(await along.finish(day.catalog)).toBe('after');
    expect((await readFile(path.join(dir, MADE_ANSWERS_FILE))).equals(await byThePass(dir, day.catalog))).toBe(true);
  }, 120_000);

  it('write nothing for a hub that loads its days whole', async () => {
    const dir = await folder('whole');
    const store = new FsObjectStore(dir);
    const along = new MadeAnswersAlongBuild(store, dir, { indexStore: 'memory' });
    // nothing is made for it as it is built either: no temp file after any page
    let temp = false;
    const day = await buildWithPages(store, models.slice(0, 50), '2026-11-28', {
      onModelsPage: async (address, bytes, first) => {
        await along.onModelsPage(address, bytes, first);
        temp ||= (await readdir(dir)).some((n) => n.startsWith(`${MADE_ANSWERS_FILE}.`));
      },
    });
    expect(temp).toBe(false);
    expect(await along.finish(day.catalog)).toBe('none');
    expect((await readdir(dir)).filter((n) => n.startsWith(MADE_ANSWERS_FILE))).toEqual([]);
  }, 60_000);
});

describe.skipIf(!existsSync(new URL('../dist/cli.js', import.meta.url)))(
  'hub index build (needs the built CLI: pnpm test builds first)',
  () => {
    it('makes the answers as it writes the pages, the file `hub index answers --fresh` writes', async () => {
      const dir = await folder('cli');
      const tree = path.join(dir, 'tree');
      const data = path.join(dir, 'data');
      // 300 SYNTHETIC model folders (75 models pages)
      for (let i = 0; i < 300; i++) {
        const m = path.join(tree, `synthetic-org-${i % 7}`, `model-${i}`);
        await mkdir(m, { recursive: true });
        await writeFile(path.join(m, 'config.json'), JSON.stringify({ synthetic: true, i }));
        await writeFile(path.join(m, `model-${i}-Q4_K_M.gguf`), `SYNTHETIC ${i}`);
      }
      const env = { HUB_INDEX_STORE: 'paged', HUB_LOG_LEVEL: 'info' };
      const source = ['--source', 'bench=http://localhost:9/{id}/resolve/{revision}/{path}', '--data', data];
      const built = await runCli(['index', 'build', '--from-dir', tree, ...source, '--date', '2026-11-24'], env);
      expect(built.code, built.stderr).toBe(0);
      const line = built.stderr.split('\n').find((l) => l.includes('"event":"made-answers"'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({
        msg: 'answers made for the cold look-ups of this day, as it was built',
        records: 300,
      });
      const along = await readFile(path.join(data, MADE_ANSWERS_FILE));
      const again = await runCli(['index', 'answers', '--data', data, '--fresh'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(along.equals(await readFile(path.join(data, MADE_ANSWERS_FILE)))).toBe(true);
    }, 120_000);
  },
);
