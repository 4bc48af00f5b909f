import type { BuildProgress, BuildSummary } from '@hub/upstream';
import { describe, expect, it } from 'vitest';
import { upstreamToken } from '../src/settings-check.js';
import { progressBar, summaryText } from '../src/upstream-build.js';

describe('the index run on a terminal', () => {
  it('the progress line shows the quota left per bucket and the pause while it waits', () => {
    const p: BuildProgress = {
      phase: 'models',
      done: 120,
      total: 500,
      id: 'owner/name',
      quota: [
        { bucket: 'api', remaining: 0, quota: 500 },
        { bucket: 'resolvers', remaining: 2210, quota: 3000 },
      ],
      waiting: { bucket: 'api', seconds: 55 },
    };
    expect(progressBar(p, 10)).toBe('[##........] 120/500 models  api 0/500 resolvers 2210/3000  waiting 55 s for the api window');
    const { waiting: _w, ...going } = p;
    expect(progressBar(going, 10)).toBe('[##........] 120/500 models  api 0/500 resolvers 2210/3000  owner/name');
  });

  it('the summary says how many models were kept and why, and which source was unreachable', () => {
    const s = {
      catalog: 'b3:x',
      date: '2026-05-05',
      models: 500,
      files: 9000,
      bytes: 1e12,
      skipped: [],
      skippedByReason: {},
      reused: 480,
      kept: 12,
      keptByReason: { 'rate limited': 12 },
      resumed: 0,
      sources: { 'modelscope.cn': 'unreachable' },
      requests: 700,
      requestsByBucket: { api: 520, resolvers: 180 },
      retries: 0,
      rateLimited: 3,
      waitedMs: 55_000,
      downloadedBytes: 0,
      seconds: 400,
    } as unknown as BuildSummary;
    const text = summaryText(s);
    expect(text).toContain('kept: 12 (rate limited)');
    expect(text).toContain('modelscope.cn: unreachable, not checked today');
    expect(text).toContain('700 upstream requests (520 api, 180 resolvers)');
  });

  it('reads the upstream token from HF_TOKEN first, then HUB_UPSTREAM_TOKEN', () => {
    expect(upstreamToken({ HF_TOKEN: 'hf_a', HUB_UPSTREAM_TOKEN: 'hf_b' })).toBe('hf_a');
    expect(upstreamToken({ HUB_UPSTREAM_TOKEN: 'hf_b' })).toBe('hf_b');
    expect(upstreamToken({ HF_TOKEN: '  ' })).toBeUndefined();
  });
});
