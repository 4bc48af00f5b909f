import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

// prom-client (and the @opentelemetry/api it loads) is imported only when metrics are on (issue 28: about 70 ms of a
// start). This file runs in a process of its own, so nothing else loaded it before.

const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(`${'/'}prom-client${'/'}`));

const hubs: TestHub[] = [];
afterEach(async () => {
  while (hubs.length) await hubs.pop()?.close();
});

describe('prom-client is loaded lazily', () => {
  it('not with metrics off, nor for the access log alone; on the first hub with metrics on', async () => {
    hubs.push(await startTestHub({ config: { logRequests: true } }));
    expect((await fetch(`${hubs[0]?.url}/api/models`)).status).toBe(200);
    expect(loaded()).toBe(false);
    const on = await startTestHub({ config: { metricsPort: 0 } });
    hubs.push(on);
    expect(loaded()).toBe(true);
    expect(await (await fetch(on.running.metrics?.url ?? '')).text()).toContain('# TYPE hub_requests_total counter');
  });
});
