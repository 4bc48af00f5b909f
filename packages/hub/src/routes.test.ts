import { createTestHub, request } from '@hub/core-index/testing';
import { hfRoutes } from '@hub/dialect-hf';
import { expect, it } from 'vitest';
import { hubRoutes } from './routes.js';
import { composedHub } from './testing/test-hub.js';

it('hubRoutes() mounts /mcp, with the hub descriptor as the descriptor resource', async () => {
  const t = await createTestHub();
  const hub = composedHub(t.deps);
  const res = await request(hub, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'hub://descriptor' } }),
  });
  expect(res.status).toBe(200);
  const descriptor = JSON.parse(res.json().result.contents[0].text);
  expect(descriptor).toMatchObject({ format: 'svc.model-hub.descriptor/v1', catalog: t.catalog, openapi: '/openapi.json' });
  expect((await request(hub, '/mcp')).status).toBe(405);
});

it('hubRoutes() registers every model-host route', () => {
  const paths = hubRoutes().map((r) => `${r.method} ${r.path}`);
  for (const r of hfRoutes()) expect(paths).toContain(`${r.method} ${r.path}`);
});
