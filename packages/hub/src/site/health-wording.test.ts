import { createTestHub } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { healthPage, modelSourcesHtml } from './pages.js';

/** What a person reads about a source (issue 27): never "live" for a source nobody checked. */
describe('source health in words', () => {
  it('a source without a probe file is "offered, not checked (no probe file)", with what it holds', async () => {
    const t = await createTestHub({
      sources: [
        { name: 'mirror-a', display: 'Mirror A', token: 'a', kind: 'http', url: 'https://a.example/{id}/{path}' },
        { name: 'far-away', display: 'Far away', token: 'f', kind: 'http', url: 'https://far.example/{id}/{path}' },
      ],
    });
    const html = healthPage(t.index, t.health);
    const row = (name: string) => html.split('<tr>').find((r) => r.includes(`<code>${name}</code>`)) ?? '';
    expect(row('mirror-a')).toContain('offered, not checked');
    expect(row('mirror-a')).toContain('(no probe file)');
    expect(row('mirror-a')).not.toContain('live');
    expect(row('far-away')).toContain('(none of this index)');
    // once probed, it is live (or down) with the time it was reached
    t.health.record('mirror-a', { ok: true, reason: '', at: 1_700_000_000_000 });
    const probed = healthPage(t.index, t.health);
    expect(probed.split('<tr>').find((r) => r.includes('<code>mirror-a</code>'))).toContain('<span class="ok">live</span>');
    const m = t.index.warm('synthetic-org/bert-ish');
    if (!m) throw new Error('fixture missing');
    expect(modelSourcesHtml(m, t.health)).not.toContain('never probed');
  });
});
