import type { AnswerLabels, MetricEvent } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { promMetrics, REQUEST_BUCKETS } from './metrics.js';

// The prom-client sink's two ways in (issue 28): `emit` of a request event, and the tally `prepare` makes for a kept
// answer. Both must count the same, bucket for bucket.

const redirectAnswer: AnswerLabels = {
  route: '/:owner/:name/resolve/:rev/*path',
  group: 'hf',
  method: 'GET',
  status: 302,
  source: 'mirror-a',
  bytes: 0,
};
const listAnswer: AnswerLabels = { route: '/api/models', group: 'hf', method: 'GET', status: 200, source: undefined, bytes: 1234 };
const redirect: MetricEvent = { type: 'redirect', source: 'mirror-a', group: 'hf' };
const noLive: MetricEvent = { type: 'no-live-source', group: 'oci' };
const missing: AnswerLabels = { route: '/v2/:name+/blobs/:digest', group: 'oci', method: 'GET', status: 503, source: undefined, bytes: 80 };

/** The hub_ lines of an exposition (the process metrics differ between two sinks by nature). */
async function hubLines(sink: ReturnType<typeof promMetrics>): Promise<string[]> {
  return (await sink.scrape()).split('\n').filter((l) => l.startsWith('hub_'));
}

describe('promMetrics: prepared tallies', () => {
  it('count exactly what the same request events count through emit', async () => {
    const emitted = promMetrics({ defaultMetrics: false });
    const prepared = promMetrics({ defaultMetrics: false });
    const seconds = [0.00004, 0.0001, 0.0003, 0.004, 0.07, 2, 9];
    const tallies = [
      [redirectAnswer, [redirect]],
      [listAnswer, []],
      [missing, [noLive]],
    ] as const;
    for (const [answer, also] of tallies) {
      const tally = prepared.prepare(answer, also);
      for (const s of seconds) {
        emitted.emit({ type: 'request', ...answer, seconds: s });
        for (const e of also) emitted.emit(e);
        tally(s, 1);
      }
    }
    const lines = await hubLines(prepared);
    expect(lines).toEqual(await hubLines(emitted));
    expect(lines).toContain('hub_requests_total{route="/:owner/:name/resolve/:rev/*path",group="hf",method="GET",status_class="3xx"} 7');
    expect(lines).toContain('hub_redirects_total{source="mirror-a"} 7');
    expect(lines).toContain('hub_response_bytes_total{group="hf"} 8638');
    expect(lines).toContain('hub_no_live_source_total{group="oci"} 7');
  });

  it('put each time in its bucket: cumulative counts, +Inf, sum and count', async () => {
    const sink = promMetrics({ defaultMetrics: false });
    const tally = sink.prepare(listAnswer, []);
    // one at each bound (le is inclusive), one above the last bound
    for (const le of REQUEST_BUCKETS) tally(le, 1);
    tally(6, 1);
    const text = await sink.scrape();
    REQUEST_BUCKETS.forEach((le, i) => {
      expect(text).toContain(`hub_request_duration_seconds_bucket{group="hf",le="${le}"} ${i + 1}\n`);
    });
    expect(text).toContain(`hub_request_duration_seconds_bucket{group="hf",le="+Inf"} ${REQUEST_BUCKETS.length + 1}\n`);
    expect(text).toContain(`hub_request_duration_seconds_count{group="hf"} ${REQUEST_BUCKETS.length + 1}\n`);
    const sum = Number(/hub_request_duration_seconds_sum\{group="hf"\} (\S+)/.exec(text)?.[1]);
    expect(sum).toBeCloseTo(REQUEST_BUCKETS.reduce((a, b) => a + b, 0) + 6, 9);
  });

  it('reach prom-client only at a scrape, adding what was counted since the last one', async () => {
    const sink = promMetrics({ defaultMetrics: false });
    const tally = sink.prepare(redirectAnswer, [redirect]);
    tally(0.0001, 1);
    expect(await hubLines(sink)).toContain('hub_redirects_total{source="mirror-a"} 1');
    tally(0.0001, 1);
    tally(0.0001, 1);
    const lines = await hubLines(sink);
    expect(lines).toContain('hub_redirects_total{source="mirror-a"} 3');
    expect(lines).toContain('hub_requests_total{route="/:owner/:name/resolve/:rev/*path",group="hf",method="GET",status_class="3xx"} 3');
  });
});
