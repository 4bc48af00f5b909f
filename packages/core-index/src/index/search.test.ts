import { describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../../fixtures/model-host/load.js';
import type { IndexedModel, WholeIndexStore } from './index-store.js';
import type { ModelRow } from './schemas.js';
import { type ModelQuery, SORT_KEYS, searchModels, searchModelsPage, searchModelsScan } from './search.js';

// The 600 real trending rows (fixtures/model-host), as the index holds them: the prepared search must give the
// same models in the same order as the plain scan it replaced, for every kind of query.
const rows = modelHostFixtures().trending;
const models: IndexedModel[] = rows.map((r, i) => {
  const [owner = '', name = ''] = r.id.split('/');
  const row = {
    id: r.id,
    ...(r.downloads !== undefined ? { downloads: r.downloads } : {}),
    ...(r.likes !== undefined ? { likes: r.likes } : {}),
    ...(r.trendingScore !== undefined ? { trendingScore: r.trendingScore } : {}),
    ...(r.pipelineTag ? { pipeline_tag: r.pipelineTag } : {}),
    ...(r.libraryName ? { library_name: r.libraryName } : {}),
    ...(r.tags ? { tags: r.tags } : {}),
    ...(r.createdAt ? { createdAt: r.createdAt } : {}),
    ...(r.lastModified ? { lastModified: r.lastModified } : {}),
  } as ModelRow;
  return { id: r.id, owner, name, row, rank: i } as unknown as IndexedModel;
});

function fakeIndex(list: IndexedModel[] = models): WholeIndexStore {
  const memos = new Map<string, unknown>();
  return {
    models: () => list,
    memo<T>(key: string, build: () => T): T {
      if (!memos.has(key)) memos.set(key, build());
      return memos.get(key) as T;
    },
  } as unknown as WholeIndexStore;
}

const ids = (ms: readonly IndexedModel[]) => ms.map((m) => m.id);

describe('prepared search answers as the scan did (real 600-row fixture)', () => {
  const index = fakeIndex();
  const words = ['', 'llama', 'Qwen', 'gguf', 'qwen3 gguf', 'a', 'e-', '/', 'deepseek-ai/', 'v4-pro', 'zzz-none', '3.6', 'B', 'q Q'];
  const authors = [undefined, 'unsloth', 'Qwen', 'deepseek-ai', 'nobody'];
  const tasks = [undefined, 'text-generation', 'Image-Text-to-Text', 'none'];
  const libraries = [undefined, 'transformers', 'gguf', 'diffusers'];
  const filters = [undefined, ['gguf'], ['conversational', 'license:apache-2.0'], ['Safetensors'], ['no-such-tag']];

  it('covers words, author, task, library and tags in combination', () => {
    let nonEmpty = 0;
    let checked = 0;
    for (const search of words)
      for (const author of authors)
        for (const pipeline_tag of tasks)
          for (const library of libraries)
            for (const filter of filters) {
              const q: ModelQuery = {
                ...(search ? { search } : {}),
                ...(author ? { author } : {}),
                ...(pipeline_tag ? { pipeline_tag } : {}),
                ...(library ? { library } : {}),
                ...(filter ? { filter } : {}),
              };
              const want = ids(searchModelsScan(index, q));
              expect(ids(searchModels(index, q)), JSON.stringify(q)).toEqual(want);
              checked++;
              if (want.length) nonEmpty++;
            }
    expect(checked).toBe(words.length * authors.length * tasks.length * libraries.length * filters.length);
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it('keeps every sort order and direction', () => {
    for (const sort of SORT_KEYS)
      for (const direction of [undefined, 1, -1] as const)
        for (const search of ['', 'qwen', 'gguf'])
          for (const author of [undefined, 'unsloth']) {
            const q: ModelQuery = {
              sort,
              ...(direction ? { direction } : {}),
              ...(search ? { search } : {}),
              ...(author ? { author } : {}),
            };
            expect(ids(searchModels(index, q)), JSON.stringify(q)).toEqual(ids(searchModelsScan(index, q)));
          }
  });

  it('finds a known real model by part of its id, and nothing for a word spanning two ids', () => {
    expect(ids(searchModels(index, { search: 'DeepSeek-V4-Pro' }))).toContain('deepseek-ai/DeepSeek-V4-Pro');
    const joined = `${models[0]?.id.toLowerCase().slice(-3)}${models[1]?.id.toLowerCase().slice(0, 3)}`;
    expect(ids(searchModels(index, { search: joined }))).toEqual(ids(searchModelsScan(index, { search: joined })));
  });
});

describe('a search page is the slice of the whole answer, with whether more follows (real 600-row fixture)', () => {
  const index = fakeIndex();
  // Words of one to many characters (no bound, trigram, 4-grams), several words, words sharing grams, none matching.
  const searches = [
    '',
    'a',
    'qw',
    'gguf',
    'qwen',
    'Qwen3',
    'qwen3 gguf',
    'gguf qwen3',
    'instruct 4b',
    'unsloth/ gguf',
    '-it',
    'zzzz',
    'lla ma',
  ];
  const authors = [undefined, 'unsloth', 'Qwen'];
  const filters = [undefined, ['gguf'], ['conversational', 'license:apache-2.0']];
  const pages: Array<[number, number]> = [
    [0, 1],
    [0, 20],
    [0, 50],
    [3, 7],
    [50, 50],
    [100, 500],
    [590, 50],
    [600, 10],
    [1000, 5],
  ];

  function expectPage(q: ModelQuery, offset: number, limit: number): number {
    const all = ids(searchModelsScan(index, q));
    const got = searchModelsPage(index, q, offset, limit);
    const label = JSON.stringify({ q, offset, limit });
    expect(ids(got.models), label).toEqual(all.slice(offset, offset + limit));
    expect(got.more, label).toBe(offset + limit < all.length);
    return all.length;
  }

  it('in browse order, for words, several words, author and tags, at every offset', () => {
    let nonEmpty = 0;
    for (const search of searches)
      for (const author of authors)
        for (const filter of filters) {
          const q: ModelQuery = { ...(search ? { search } : {}), ...(author ? { author } : {}), ...(filter ? { filter } : {}) };
          for (const [offset, limit] of pages) if (expectPage(q, offset, limit) > offset + limit) nonEmpty++;
        }
    // Pages with more to follow, so the early stop was taken for real.
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it('in every sort order and direction, by walking the order or sorting every match', () => {
    for (const sort of SORT_KEYS)
      for (const direction of [undefined, 1, -1] as const)
        for (const search of ['', 'a', 'gguf', 'qwen3 gguf', 'deepseek-ai/', 'zzzz'])
          for (const [offset, limit] of pages) {
            const q: ModelQuery = { sort, ...(direction ? { direction } : {}), ...(search ? { search } : {}) };
            expectPage(q, offset, limit);
            expectPage({ ...q, author: 'unsloth' }, offset, limit);
            expectPage({ ...q, pipeline_tag: 'text-generation', library: 'transformers' }, offset, limit);
          }
  });

  it('pages through a whole answer, each model once, in order', () => {
    for (const q of [
      { search: 'gguf' },
      { search: 'qwen', sort: 'downloads' },
      { filter: ['conversational'], sort: 'id' },
    ] as ModelQuery[]) {
      const all = ids(searchModelsScan(index, q));
      const seen: string[] = [];
      for (let offset = 0; ; offset += 7) {
        const page = searchModelsPage(index, q, offset, 7);
        seen.push(...ids(page.models));
        if (!page.more) break;
      }
      expect(seen, JSON.stringify(q)).toEqual(all);
      expect(all.length).toBeGreaterThan(7);
    }
  });
});

describe('ids and words beyond ASCII (SYNTHETIC ids)', () => {
  // Made-up ids: grams of ASCII characters are kept as numbers, others as text; both must find the same models.
  const synthetic = ['org/modèle-été', 'org/modele-ete', 'Ünï/çödé-βeta', 'org/plain-model', 'org/été'].map(
    (id, rank) => ({ id, owner: id.split('/')[0], name: id.split('/')[1], row: { id }, rank }) as unknown as IndexedModel,
  );
  const index = fakeIndex(synthetic);
  it('matches as the scan does', () => {
    for (const search of ['été', 'ete', 'dèle', 'modè', 'odèl', 'ÇÖDÉ', 'βeta', 'ünï/', 'e-', 'model', 'org/', 'x', 'é'])
      for (const [offset, limit] of [
        [0, 50],
        [1, 1],
      ] as const) {
        const want = ids(searchModelsScan(index, { search }));
        expect(ids(searchModels(index, { search })), search).toEqual(want);
        const page = searchModelsPage(index, { search }, offset, limit);
        expect(ids(page.models), search).toEqual(want.slice(offset, offset + limit));
        expect(page.more, search).toBe(offset + limit < want.length);
      }
    expect(ids(searchModels(index, { search: 'été' }))).toEqual(['org/modèle-été', 'org/été']);
  });
});
