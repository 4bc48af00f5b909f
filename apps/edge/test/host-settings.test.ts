/**
 * Issue 38: the edge reads its host settings through core-index's `hostPolicyFrom`, as node-server does, and refuses
 * a `BASE_URL` that cannot be an origin the same way: with that function's message (every request 503, since a
 * Worker cannot refuse to start). node-server's side: apps/node-server/test/cli-refusals.test.ts.
 */
import { hostPolicyFrom } from '@hub/core-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from './harness.js';

const BAD = 'ftp://models.example.org';
let edge: RunningEdge;
beforeAll(async () => {
  edge = await startEdge({ bindings: { BASE_URL: BAD, TRUST_PROXY: 'true' } });
}, 120_000);
afterAll(async () => {
  await edge?.close();
});

describe('the edge refuses a bad BASE_URL with the host-settings rule of both hosts', () => {
  it('answers 503 naming what baseUrl must be, on every route, before any handler runs', async () => {
    const expected = (() => {
      try {
        hostPolicyFrom({ listenHost: '0.0.0.0', baseUrl: BAD });
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('the bad baseUrl was accepted');
    })();
    for (const path of ['/api/models', '/.well-known/model-hub.json', '/v2/']) {
      const r = await fetch(`${edge.url}${path}`);
      expect(r.status, path).toBe(503);
      const body = await r.text();
      expect(body).toContain(expected);
      expect(body).not.toContain(BAD);
    }
  });
});
