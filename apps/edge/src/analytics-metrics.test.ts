import { createHub } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { hubRoutes } from '@hub/hub';
import { describe, expect, it } from 'vitest';
import { analyticsEngineMetrics } from './analytics-metrics.js';

/** The edge's Workers Analytics Engine sink, behind a real hub over SYNTHETIC models (createTestHub). */
describe('analyticsEngineMetrics', () => {
  it('writes one point per answer with the route pattern, never the path, and never fails a request', async () => {
    const points: Array<{ blobs?: string[]; doubles?: number[]; indexes?: string[] }> = [];
    const t = await createTestHub();
    const hub = createHub(
      { ...t.deps, metrics: analyticsEngineMetrics({ writeDataPoint: (p) => void points.push(p) }) },
      hubRoutes() as never,
    );
    const r = await request(hub, '/synthetic-org/bert-ish/resolve/main/config.json?token=QSECRET');
    expect(r.status).toBe(302);
    expect(points).toEqual([
      {
        indexes: ['request'],
        blobs: ['/:owner/:name/resolve/:rev/*path', 'hf', 'GET', 'mirror-a', ''],
        doubles: [302, expect.any(Number), 0],
      },
    ]);
    expect(JSON.stringify(points)).not.toMatch(/bert-ish|QSECRET/);

    t.health.record('mirror-a', { ok: false, reason: 'unreachable', at: 0 });
    expect((await request(hub, '/synthetic-org/bert-ish/resolve/main/config.json')).status).toBe(503);
    expect(points.slice(1).map((p) => p.indexes?.[0])).toEqual(['request', 'no-live-source']);

    const throwing = createHub(
      {
        ...t.deps,
        metrics: analyticsEngineMetrics({
          writeDataPoint: () => {
            throw new Error('SYNTHETIC: the dataset refuses writes');
          },
        }),
      },
      hubRoutes() as never,
    );
    expect((await request(throwing, '/api/models/synthetic-org/bert-ish')).status).toBe(200);
  });
});
