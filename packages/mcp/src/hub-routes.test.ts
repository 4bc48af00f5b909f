import { createTestHub } from '@hub/core-index/testing';
import { createHub, hubRoutes } from '@hub/hub';
import { request } from '@hub/hub/testing';
import { expect, it } from 'vitest';

it('hubRoutes() mounts /mcp, with the hub descriptor as the descriptor resource', async () => {
  const t = await createTestHub();
  const hub = createHub(t.deps as any, hubRoutes());
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
