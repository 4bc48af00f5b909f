import type { BuildModelInput } from '@hub/core-index';
import { createHub, type Hub } from '@hub/core-index';
import { createTestHub, type TestHub } from '@hub/core-index/testing';
import { hfRoutes } from '../routes.js';

/** A hub over the SYNTHETIC test index with only this dialect's routes (test support, not exported). */
export async function hfHub(options: { models?: BuildModelInput[] } = {}): Promise<TestHub & { hub: Hub }> {
  const t = await createTestHub(options);
  return { ...t, hub: createHub(t.deps, hfRoutes()) };
}

/** `n` SYNTHETIC models for paging tests (made-up ids and hashes). */
export function manyModels(n: number): BuildModelInput[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `synthetic-many/model-${String(i).padStart(3, '0')}`,
    revision: i.toString(16).padStart(40, '0'),
    files: [{ path: 'config.json', size: 10 + i, sha256: (i + 1).toString(16).padStart(64, '0') }],
    row: { trendingScore: 1000 - i, downloads: i, likes: i % 7, tags: i % 2 ? ['odd'] : ['even'] },
    sources: [{ source: 'mirror-a', type: 'http' as const }],
  }));
}
