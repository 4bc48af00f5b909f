import type { AddressInfo } from 'node:net';
import { type CoreDeps, createHub, json, type Route } from '@hub/core-index';
import { createTestHub } from '@hub/core-index/testing';
import { createComposedTestHub } from '@hub/hub/testing';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubMiddleware } from './koa-middleware.js';

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

describe('hubMiddleware when an answer cannot be written', () => {
  it('answers the hub’s own 500 and keeps serving; the operator’s app sees no error it must handle', async () => {
    const t = await createTestHub();
    const base = { rules: 'read', errors: 'hub', group: 'discovery', cache: 60 } as const;
    const routes: Route<CoreDeps>[] = [
      // a header value Node refuses to write (a line break)
      { ...base, method: 'GET', path: '/bad', summary: 'unwritable', handler: () => json(200, {}, { 'x-bad': 'a\nb' }) },
      { ...base, method: 'GET', path: '/good', summary: 'fine', handler: () => json(200, { ok: true }) },
    ];
    const app = new Koa();
    const errors: unknown[] = [];
    app.on('error', (e) => errors.push(e));
    app.use(hubMiddleware(createHub(t.deps, routes)));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const bad = await fetch(`${at}/bad`);
      expect(bad.status).toBe(500);
      expect(bad.headers.get('content-type')).toBe('application/json');
      expect(await bad.json()).toEqual({ error: 'Internal error' });
      expect(errors).toEqual([]);
      expect(await (await fetch(`${at}/good`)).json()).toEqual({ ok: true });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
