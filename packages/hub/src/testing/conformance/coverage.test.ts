import { Router } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { hubRoutes } from '../../routes.js';
import { conformanceCases } from './cases.js';
import type { ConformanceFacts } from './types.js';

/** Values shaped like the demo's, enough to route every case. */
const FACTS: ConformanceFacts = {
  catalog: `blake3:${'0'.repeat(64)}`,
  ggufCommit: '0'.repeat(40),
  bertCommit: '0'.repeat(40),
  ggufSha256: '0'.repeat(64),
  ggufSize: 1,
  configDigest: `sha256:${'0'.repeat(64)}`,
  manifestDigest: `sha256:${'0'.repeat(64)}`,
  sumsEtag: '"x"',
  spacesCatalog: `blake3:${'0'.repeat(64)}`,
  verifyRoot: '0'.repeat(64),
  bucketsCatalog: `blake3:${'0'.repeat(64)}`,
  bucketBlob: `sha256:${'0'.repeat(64)}`,
  repositories: ['demo/tiny-bert-synthetic'],
};

/** One key per route; the many registry-write routes (every write method on every /v2 path) count as one. */
const key = (r: { method: string; path: string; rules: string }) =>
  r.rules === 'registry-write' ? 'writes under /v2/' : `${r.method} ${r.path}`;

describe('the conformance suite', () => {
  it('has a case for every route of every package in hubRoutes()', () => {
    const routes = hubRoutes();
    const router = new Router(routes);
    const covered = new Set<string>();
    for (const c of conformanceCases()) {
      const method = (c.request.method ?? 'GET').toUpperCase();
      if (method === 'OPTIONS') continue;
      const raw = typeof c.request.path === 'function' ? c.request.path(FACTS) : c.request.path;
      const m = router.match(method === 'HEAD' ? 'GET' : method, raw.split('?')[0] as string);
      if (m.kind === 'found') covered.add(key(m.route));
    }
    const missing = [...new Set(routes.map(key))].filter((k) => !covered.has(k));
    expect(missing).toEqual([]);
  });

  it('names every case once, so two hosts can be compared case by case', () => {
    const names = conformanceCases().map((c) => c.name);
    expect(names.length).toBeGreaterThan(80);
    expect(new Set(names).size).toBe(names.length);
  });
});
