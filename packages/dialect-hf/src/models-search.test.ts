import type { IndexedModel, ModelQuery } from '@hub/core-index';
import { fnv1a } from '@hub/core-index';
import { request, searchModelsScan } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { trendingBuildModels } from '../../../fixtures/model-host/load.js';
import { decodeCursor, encodeCursor } from './models.js';
import { hfHub } from './testing/hf-hub.js';

/**
 * `/api/models` with search, author, filter and sort answers exactly what the plain scan and the old page assembly
 * (`JSON.stringify` of each row, joined) gave, on an index of the 600 real trending rows (fixtures/model-host: ids,
 * counts, dates, task, library and tags are real). Each model's one file and its hash are SYNTHETIC.
 */

const models = trendingBuildModels();

let t: Awaited<ReturnType<typeof hfHub>>;
beforeAll(async () => {
  t = await hfHub({ models });
});

/** The page as the route built it before it was prepared: the scan, a slice, each row serialised, joined. */
function oldBody(all: readonly IndexedModel[], offset: number, limit: number, full: boolean): string {
  const rows = all.slice(offset, offset + limit).map((m) => {
    const row: Record<string, unknown> = { ...m.row };
    if (full) row.siblings = m.files.map((f) => ({ rfilename: f.path }));
    return JSON.stringify(row);
  });
  return `[${rows.join(',')}]`;
}

/** The query of a request URL as the route reads it (sort aliases are tested elsewhere). */
function modelQuery(params: URLSearchParams): ModelQuery {
  const q: ModelQuery = {};
  const search = params.get('search');
  if (search) q.search = search;
  const author = params.get('author');
  if (author) q.author = author;
  const filter = params.getAll('filter').flatMap((f) => f.split(',').filter(Boolean));
  if (filter.length) q.filter = filter;
  const task = params.get('pipeline_tag');
  if (task) q.pipeline_tag = task;
  const library = params.get('library');
  if (library) q.library = library;
  const sort = params.get('sort');
  if (sort) q.sort = sort as ModelQuery['sort'];
  const direction = params.get('direction');
  if (direction) q.direction = Number(direction) as 1 | -1;
  return q;
}

/** Ask `query` (every page, following Link) and compare each answer with the old one. Returns the pages seen. */
async function expectSameAsOld(query: string): Promise<number> {
  const first = new URLSearchParams(query);
  const all = searchModelsScan(t.index, modelQuery(first));
  const limit = Number(first.get('limit') ?? 50);
  const full = first.get('full') === 'true';
  let url: string | undefined = `/api/models?${query}`;
  let pages = 0;
  while (url) {
    const params = new URL(url, 'http://hub.test').searchParams;
    const offset = decodeCursor(params.get('cursor') ?? encodeCursor({ offset: 0 }))?.offset ?? -1;
    for (let again = 0; again < 3; again++) {
      // three times: the first answer is built, the second remembered, the third answered from the kept page
      const res = await request(t.hub, url);
      expect(res.status, url).toBe(200);
      expect(res.text, `${url} (answer ${again + 1})`).toBe(oldBody(all, offset, limit, full));
      const search = url.slice(url.indexOf('?') + 1);
      expect(res.headers.etag).toBe(`"${fnv1a(new TextEncoder().encode(`${t.catalog}?${search}`))}"`);
      const more = offset + limit < all.length;
      if (!more) expect(res.headers.link, url).toBeUndefined();
      else {
        const next = new URLSearchParams(params);
        next.set('cursor', encodeCursor({ offset: offset + limit }));
        expect(res.headers.link, url).toBe(`<http://hub.test/api/models?${next.toString()}>; rel="next"`);
      }
    }
    pages++;
    const link: string | undefined = (await request(t.hub, url)).headers.link;
    url = link ? /^<http:\/\/hub\.test([^>]+)>/.exec(link)?.[1] : undefined;
  }
  return pages;
}

describe('GET /api/models with a search answers as before (real 600-row fixture)', () => {
  it('for one word, several words, and words matching nothing', async () => {
    expect(await expectSameAsOld('search=qwen&limit=50')).toBeGreaterThan(1);
    expect(await expectSameAsOld('search=Qwen3%20GGUF&limit=20')).toBeGreaterThan(1);
    expect(await expectSameAsOld('search=gguf+instruct')).toBeGreaterThanOrEqual(1);
    await expectSameAsOld('search=a&limit=100');
    await expectSameAsOld('search=zzzz-none');
  });

  it('with author, filter, task and library beside the search', async () => {
    expect(await expectSameAsOld('search=gguf&author=unsloth&limit=10')).toBeGreaterThan(1);
    await expectSameAsOld('search=qwen&filter=conversational&filter=license:apache-2.0&limit=10');
    await expectSameAsOld('search=b&filter=gguf,conversational&limit=25');
    await expectSameAsOld('search=instruct&pipeline_tag=text-generation&library=transformers&limit=5');
    await expectSameAsOld('author=Qwen&limit=7');
    await expectSameAsOld('filter=text-generation&limit=100');
  });

  it('in every sort order and direction, with full rows', async () => {
    for (const sort of ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified', 'id'])
      for (const direction of ['', '&direction=1', '&direction=-1']) {
        await expectSameAsOld(`search=qwen&sort=${sort}${direction}&limit=40`);
        await expectSameAsOld(`search=deepseek-ai/&sort=${sort}${direction}&limit=3&full=true`);
      }
  });

  it('keeps the ETag of the old answer for a query that is not ASCII', async () => {
    const res = await request(t.hub, '/api/models?search=é&limit=5');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(`"${fnv1a(new TextEncoder().encode(`${t.catalog}?search=é&limit=5`))}"`);
  });

  it('answers a kept page with the Link of the origin asking', async () => {
    const url = '/api/models?search=qwen&limit=10';
    await request(t.hub, url);
    await request(t.hub, url);
    const other = await request(t.hub, `http://other.test${url}`);
    expect(other.headers.link).toBe(
      `<http://other.test/api/models?search=qwen&limit=10&cursor=${encodeCursor({ offset: 10 })}>; rel="next"`,
    );
  });

  it('still refuses a bad request that looks like a kept one', async () => {
    await request(t.hub, '/api/models?search=qwen&limit=10');
    await request(t.hub, '/api/models?search=qwen&limit=10');
    const res = await request(t.hub, '/api/models?search=qwen&limit=1000');
    expect(res.status).toBe(400);
  });
});
