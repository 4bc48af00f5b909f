import type { AddressInfo } from 'node:net';
import { createComposedTestHub } from '@hub/hub/testing';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubMiddleware } from './node-listener.js';

/** `hubMiddleware`: the hub mounted inside an operator's own Koa app (design: the hub skips Koa in node-server). */
describe('hubMiddleware in an operator Koa app', () => {
  let server: import('node:http').Server;
  let base = '';
  beforeAll(async () => {
    const { hub } = await createComposedTestHub();
    const app = new Koa();
    app.use(hubMiddleware(hub));
    app.use((ctx) => {
      ctx.body = `operator: ${ctx.path}`;
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers hub paths with the hub, rules included', async () => {
    const r = await fetch(`${base}/api/models?limit=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await r.json()) as unknown[]).length).toBe(1);
    const missing = await fetch(`${base}/api/models/nobody/nothing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-error-code')).toBe('RepoNotFound');
  });

  it('passes /-/ paths on to the next middleware', async () => {
    const r = await fetch(`${base}/-/mine`);
    expect(await r.text()).toBe('operator: /-/mine');
  });
});
