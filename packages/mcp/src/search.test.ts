import type { ModelQuery } from '@hub/core-index';
import { createHub, loadIndex, openPagedIndex } from '@hub/core-index';
import { countedPagedDay, createTestHub, olderRoot, request, searchModelsScan } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { trendingBuildModels } from '../../../fixtures/model-host/load.js';
import { mcpRoutes } from './index.js';
import { TEXT_LIMIT } from './paging.js';

/**
 * hub_repo_search renders only the rows an answer shows: every page still numbers its rows from the whole answer,
 * counts every match, and its cursors reach each match once, in the search's order, on an index of the 600 real
 * trending rows (fixtures/model-host: ids, counts, dates, task, library and tags are real; each model's one file and
 * its hash are SYNTHETIC).
 */

const models = trendingBuildModels();

let t: Awaited<ReturnType<typeof createTestHub>>;
let hub: ReturnType<typeof createHub>;
beforeAll(async () => {
  t = await createTestHub({ models });
  hub = createHub(t.deps, mcpRoutes());
});

async function call(args: Record<string, unknown>, on: ReturnType<typeof createHub> = hub) {
  const res = await request(on, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hub_repo_search', arguments: args } }),
  });
  expect(res.status).toBe(200);
  return res.json().result as { content: Array<{ text: string }>; structuredContent: any; isError?: boolean };
}

/** Page through `args` with `limit`; every answer checked against the scan. */
async function expectPaged(args: Record<string, unknown>, q: ModelQuery, limit: number): Promise<number> {
  const want = searchModelsScan(t.index, q).map((m) => m.id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let answers = 0;
  do {
    const r = await call({ ...args, limit, ...(cursor ? { cursor } : {}) });
    const label = JSON.stringify({ args, limit, answers });
    expect(r.isError, label).toBeUndefined();
    const s = r.structuredContent;
    expect(s.total, label).toBe(want.length);
    expect(s.offset, label).toBe(seen.length);
    expect(s.returned, label).toBe(s.models.length);
    const text = r.content[0]?.text ?? '';
    expect(text.length, label).toBeLessThan(TEXT_LIMIT + 600);
    // rows numbered from the whole answer: offset + 1, offset + 2, …
    const numbers = [...text.matchAll(/^(\d+)\. \*\*([^*]+)\*\*/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(numbers, label).toEqual(s.models.map((m: any, k: number) => [seen.length + k + 1, m.id]));
    seen.push(...s.models.map((m: any) => m.id));
    cursor = s.next_cursor;
    if (cursor) expect(text, label).toContain(`${seen.length - s.returned + 1}–${seen.length} of ${want.length}`);
    else if (s.offset > 0) expect(text, label).toContain('end of the listing');
    answers++;
  } while (cursor && answers < 200);
  expect(seen).toEqual(want);
  return answers;
}

describe('hub_repo_search pages as before (real 600-row fixture)', () => {
  it('with no query: every listed model, numbered, cut by limit or 8 KB', async () => {
    expect(await expectPaged({}, {}, 100)).toBeGreaterThan(6);
    expect(await expectPaged({ sort: 'downloads' }, { sort: 'downloads' }, 20)).toBe(30);
  });

  it('with words, author, tags, task and library', async () => {
    expect(await expectPaged({ query: 'qwen' }, { search: 'qwen' }, 7)).toBeGreaterThan(2);
    await expectPaged({ query: 'qwen3 gguf', sort: 'likes' }, { search: 'qwen3 gguf', sort: 'likes' }, 3);
    await expectPaged({ author: 'unsloth', filters: ['gguf'] }, { author: 'unsloth', filter: ['gguf'] }, 10);
    await expectPaged(
      { task: 'text-generation', library: 'transformers' },
      { pipeline_tag: 'text-generation', library: 'transformers' },
      100,
    );
    await expectPaged({ query: 'zzzz-none' }, { search: 'zzzz-none' }, 5);
  });
});

describe('hub_repo_search of a word that walks the order, on a paged day its budget stops', () => {
  it('each next_cursor goes on from where the last walk ended: every match once, in order', async () => {
    // 3,000 SYNTHETIC models; the day's root without its short words' terms, so `gg` (every third id) walks
    const { catalog, pages, inner: objects } = await countedPagedDay(3_000);
    const older = await olderRoot(objects, pages, 'shortGrams');
    // opened afresh for each answer: at a million models no page of an earlier walk is still kept
    let index = await openPagedIndex(objects, older, catalog, { searchReadsMax: 40 });
    const paged = createHub({ ...t.deps, index: () => index }, mcpRoutes());
    const whole = await loadIndex(objects, catalog);
    const want = (await whole.search({ search: 'gg', listed: true }, 0, 3_000)).models.map((m) => m.id);
    expect(want.length).toBeGreaterThan(500);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let answers = 0; answers < 500; answers++) {
      index = await openPagedIndex(objects, older, catalog, { searchReadsMax: 40 });
      const s = (await call({ query: 'gg', limit: 25, ...(cursor ? { cursor } : {}) }, paged)).structuredContent;
      seen.push(...s.models.map((m: { id: string }) => m.id));
      cursor = s.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(want);
  });
});
