import { createHub, loadIndex, openPagedIndex } from '@hub/core-index';
import { type CountingObjectStore, countedPagedDay, createTestHub, olderRoot, request } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor } from './models.js';
import { hfRoutes } from './routes.js';

/**
 * `/api/models?search=` followed by its `Link: rel="next"` when the search walks the order (a word no posting list
 * bounds) on a paged day whose budget of reads stops the walk: each page goes on from where the last one's walk ended
 * (the cursor carries it), so the pages list exactly what the whole-index store lists, and no page walks the models
 * the pages before it walked. 3,000 SYNTHETIC models; the day's root without its short words' terms (as a day written
 * before them), so words of one or two characters walk.
 */

const BUDGET = 40;
type Hub = ReturnType<typeof createHub>;
let paged: Hub;
let whole: Hub;
let counted: CountingObjectStore;
/** A paged store opened afresh for each page (at a million models no page of an earlier walk is still kept). */
let fresh: () => Promise<void>;

beforeAll(async () => {
  const { catalog, pages, inner: objects, store } = await countedPagedDay(3_000);
  const older = await olderRoot(objects, pages, 'shortGrams');
  counted = store;
  let index = await openPagedIndex(counted, older, catalog, { searchReadsMax: BUDGET });
  fresh = async () => {
    index = await openPagedIndex(counted, older, catalog, { searchReadsMax: BUDGET });
  };
  const wholeIndex = await loadIndex(objects, catalog);
  const t = await createTestHub();
  paged = createHub({ ...t.deps, index: () => index }, hfRoutes());
  whole = createHub({ ...t.deps, index: () => wholeIndex }, hfRoutes());
}, 120_000);

/** Every page of `url` by its links: the ids in order, the pages, and the most reads one page made. */
async function follow(hub: Hub, url: string): Promise<{ ids: string[]; pages: number; reads: number; cursors: string[] }> {
  const ids: string[] = [];
  const cursors: string[] = [];
  let next: string | undefined = url;
  let pages = 0;
  let reads = 0;
  while (next && pages < 2_000) {
    if (hub === paged) await fresh();
    counted.reset();
    const res = await request(hub, next);
    reads = Math.max(reads, counted.reads);
    expect(res.status, next).toBe(200);
    ids.push(...(res.json() as Array<{ id: string }>).map((m) => m.id));
    pages++;
    const link = res.headers.link as string | undefined;
    next = link ? /^<http:\/\/hub\.test([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    if (link) cursors.push(new URL(next as string, 'http://hub.test').searchParams.get('cursor') as string);
  }
  return { ids, pages, reads, cursors };
}

describe('a search that walks the order, followed page by page', () => {
  for (const query of [
    'search=mo&sort=likes&limit=75',
    'search=zz&limit=50',
    'search=gg&limit=30',
    'search=7&sort=id&direction=1&limit=25',
  ])
    it(query, async () => {
      const want = await follow(whole, `/api/models?${query}`);
      const got = await follow(paged, `/api/models?${query}`);
      expect(got.ids).toEqual(want.ids);
      // each page within its budget of reads (the page's posting lists, the models pages it walked, and the one of the
      // model it stopped at), however deep
      expect(got.reads).toBeLessThanOrEqual(BUDGET + 3);
      expect(got.pages).toBeGreaterThan(2);
      // every next page goes on from where the last walk ended (the cursor's place), forward only
      const places = got.cursors.map((c) => decodeCursor(c)?.from);
      expect(places.every((p) => p !== undefined)).toBe(true);
      for (let k = 1; k < places.length; k++) expect(places[k] as number).toBeGreaterThan(places[k - 1] as number);
    });

  it('an older cursor (an offset alone) still answers its page, and links on with a place', async () => {
    await fresh();
    const res = await request(paged, `/api/models?search=gg&limit=30&cursor=${btoa('o:30').replace(/=+$/, '')}`);
    const want = (await request(whole, '/api/models?search=gg&limit=60')).json() as Array<{ id: string }>;
    expect(res.status).toBe(200);
    // the page as far as its budget reached (the walk passed the 30 matches before it), then a link from there
    const got = (res.json() as Array<{ id: string }>).map((m) => m.id);
    expect(got.length).toBeGreaterThan(0);
    expect(got).toEqual(want.slice(30, 30 + got.length).map((m) => m.id));
    const next = /cursor=([^&>]+)/.exec(res.headers.link as string)?.[1] as string;
    expect(decodeCursor(next)).toEqual({ offset: 30 + got.length, from: expect.any(Number) });
  });
});
