import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PagedIndex } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from '../apps/edge/test/harness.js';
import { startTestHub, type TestHub } from '../apps/node-server/test/helpers.js';

/**
 * A model look-up from the day's pages beyond the root's head, on both hosts: the conformance suite's demo day has two
 * models, both in the head, so its look-ups never read an id bucket or a model's bytes by range (layout 3's id
 * entries). Here one SYNTHETIC day of 300 models is built once and served by node-server (its data folder) and by the
 * edge (the same objects uploaded to R2), both paged; every answer compared is byte for byte the same.
 */

const models = syntheticModels(300);
let dataDir: string;
let node: TestHub;
let edge: RunningEdge;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-paged-both-'));
  const fs = new FsObjectStore(dataDir);
  await buildWithPages(fs, models);
  node = await startTestHub({ dataDir, config: { demo: false, indexStore: 'paged' } });
  // the edge's bucket gets the same objects and refs, uploaded as `pnpm --filter @hub/edge dev` uploads a store
  edge = await startEdge({ store: fs, bindings: { INDEX_STORE: 'paged', LOG_LEVEL: 'warn' } });
}, 600_000);

afterAll(async () => {
  await edge?.close();
  await node?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function answer(base: string, p: string): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(`${base}${p}`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('a model look-up from a layout 3 day beyond the head answers the same on node-server and at the edge', () => {
  const ids = [models[7]?.id, models[150]?.id, models[299]?.id] as string[];
  const paths = [
    ...ids.map((id) => `/api/models/${id}`),
    `/api/models/${ids[1]}/revision/main`,
    `/api/models/${(ids[2] as string).toUpperCase()}`,
    '/api/models/synthetic-org-1/no-such-model',
    // searches of a word of three characters: the union of the 4-grams that hold it (R2 reads at the edge)
    '/api/models?search=9-g&limit=50',
    '/api/models?search=L-2&sort=downloads&limit=20',
    // words of one and two characters: their own terms (`s:`), or none for a word in no id
    '/api/models?search=d.&limit=50',
    '/api/models?search=zz&limit=50',
    '/api/models?search=gg&sort=likes&limit=20',
  ];

  it('node-server serves the day from its pages (the edge is told INDEX_STORE paged)', () => {
    expect(node.running.deps.index()).toBeInstanceOf(PagedIndex);
  });

  for (const p of paths)
    it(`GET ${p}`, async () => {
      const [a, b] = [await answer(node.url, p), await answer(edge.url, p)];
      expect(b).toEqual(a);
      if (!p.includes('no-such-model') && p === p.toLowerCase()) expect(a.status).toBe(200);
      if (p.includes('search=')) {
        const found = (JSON.parse(a.body) as Array<{ id: string }>).map((m) => m.id);
        const word = (new URLSearchParams(p.split('?')[1]).get('search') as string).toLowerCase();
        const matching = models.filter((m) => m.id.toLowerCase().includes(word)).map((m) => m.id);
        expect(found.length).toBe(Math.min(matching.length, p.includes('limit=20') ? 20 : 50));
        expect(found.every((id) => matching.includes(id))).toBe(true);
      }
    });
});
