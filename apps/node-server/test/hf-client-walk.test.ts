import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { FsObjectStore } from '@hub/objects/node';
import { listModels } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The host's JavaScript client lists a search that walks the order (a word of two characters in more ids than its
 * term lists, so no posting list bounds it) on node-server's paged store, over HTTP: it follows `Link: rel="next"`,
 * whose cursor carries where each page's walk ended, and sees every match once. 4,200 SYNTHETIC models.
 */

const models = syntheticModels(4_200);
let dataDir: string;
let hub: TestHub;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-walk-client-'));
  await buildWithPages(new FsObjectStore(dataDir), models);
  hub = await startTestHub({ dataDir, config: { demo: false, indexStore: 'paged' } });
}, 600_000);

afterAll(async () => {
  await hub?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('listModels of a search that walks, on the paged store', () => {
  it('follows each page from where the last walk ended and sees every match once', async () => {
    const urls: string[] = [];
    const tracking: typeof fetch = async (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    const names: string[] = [];
    // `mo` is in every SYNTHETIC id ('model-N'): more than 4,096, so its term is a count and the search walks
    for await (const m of listModels({ hubUrl: hub.url, search: { query: 'mo' }, fetch: tracking })) names.push(m.name);
    expect(names).toEqual(models.map((m) => m.id));
    expect(urls.length).toBeGreaterThan(2);
    // every next page's cursor names a place in the walk (o:OFFSET:FROM), past the last one's
    const places = urls.slice(1).map((u) => {
      const cursor = new URL(u).searchParams.get('cursor') as string;
      return Number(/^o:\d+:(\d+)$/.exec(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')))?.[1]);
    });
    expect(places.every((p) => Number.isInteger(p))).toBe(true);
    for (let k = 1; k < places.length; k++) expect(places[k] as number).toBeGreaterThan(places[k - 1] as number);
  });
});
