/**
 * Issue 19 on the edge: the same request-target/Host rule as node-server (core-index's `requestTarget`), under
 * workerd. Over a raw socket, since fetch cannot send these Host values.
 */
import { rawHttp as raw } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from './harness.js';

/**
 * The issue's invalid Hosts that reach the Worker. workerd itself cannot build `request.url` from the others
 * (`a b`, `a@b`, `%00`, `a"b<c>`, a Host with `/?#`) and answers its own 500 before any Worker code runs (under
 * Miniflare, on a direct socket as through its entry Worker); those are asserted below never to reach a route.
 */
const BAD_HOSTS = ['xn--', '[', 'a:65536', '[::1]:99999', ':', 'a:b:c'];
const RUNTIME_REFUSED = ['a b', 'a@b', '%00', 'a"b<c>', '/', '?', '#'];
const GROUPS = [
  { method: 'GET', path: '/llms.txt', shape: 'text' },
  { method: 'GET', path: '/api/models', shape: 'hub' },
  { method: 'GET', path: '/demo/tiny-bert-synthetic/resolve/main/config.json', shape: 'hub' },
  { method: 'GET', path: '/api/account/me', shape: 'hub' },
  { method: 'GET', path: '/', shape: 'hub' },
  { method: 'POST', path: '/mcp', shape: 'hub' },
  { method: 'GET', path: '/v2/', shape: 'oci' },
  { method: 'POST', path: '/api/v1/objects', shape: 'objects' },
] as const;

function expectShape(shape: string, body: string): void {
  if (shape === 'text') {
    expect(body).toMatch(/Host/);
    return;
  }
  const value = JSON.parse(body);
  if (shape === 'hub') expect(typeof value.error).toBe('string');
  if (shape === 'oci') expect(value.errors[0].code).toBe('BAD_REQUEST');
  if (shape === 'objects') expect(value.code).toBe('BAD_REQUEST');
}

let edge: RunningEdge;
let local: RunningEdge;
let port: number;
let localPort: number;
beforeAll(async () => {
  // straight to the Worker: Miniflare's entry Worker would answer 500 itself for a Host it cannot parse
  edge = await startEdge({ direct: true });
  port = Number(new URL(edge.directUrl as string).port);
  // as `wrangler dev` with LISTEN_HOST=127.0.0.1 in .dev.vars: loopback only, one name allowed deliberately
  local = await startEdge({ bindings: { LISTEN_HOST: '127.0.0.1', ALLOWED_HOSTS: '["hub.internal"]' }, direct: true });
  localPort = Number(new URL(local.directUrl as string).port);
}, 120_000);
afterAll(async () => {
  await edge?.close();
  await local?.close();
});

describe('the edge: Host header and request target (issue 19), under workerd over a raw socket', () => {
  for (const g of GROUPS) {
    it(`answers 400 in the ${g.shape} shape for every invalid Host on ${g.method} ${g.path}`, async () => {
      for (const host of BAD_HOSTS) {
        const r = await raw(port, `${g.method} ${g.path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
        expect(r.status, `Host: ${host}`).toBe(400);
        expectShape(g.shape, r.body);
      }
    });
  }

  it('never lets a Host that workerd cannot parse, or a "/", "?" or "#" inside Host, reach a route', async () => {
    const hosts = [...RUNTIME_REFUSED, `127.0.0.1:${port}/api/models?limit=1#`, `127.0.0.1:${port}/api/account/me?`];
    for (const host of hosts) {
      const r = await raw(port, `GET /llms.txt HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).toBeGreaterThanOrEqual(400);
      expect(r.body, host).not.toContain('"id"');
      expect(r.body, host).not.toContain('llms');
    }
  });

  it('accepts valid hosts and any Host when public (as a node hub bound to 0.0.0.0)', async () => {
    for (const host of ['localhost', `127.0.0.1:${port}`, '[::1]', 'evil.example']) {
      const r = await raw(port, `GET /api/models?limit=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).toBe(200);
    }
  });

  it('with LISTEN_HOST=127.0.0.1, refuses /mcp for a foreign Host or Origin (403 {error}) and accepts loopback and allowed names', async () => {
    const mcp = (host: string, origin?: string) =>
      raw(
        localPort,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}Content-Type: application/json\r\n` +
          'Accept: application/json, text/event-stream\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      );
    for (const [host, origin] of [['evil.example'], [`127.0.0.1:${localPort}`, 'http://evil.example']] as const) {
      const r = await mcp(host, origin);
      expect(r.status, `${host} ${origin}`).toBe(403);
      expect(JSON.parse(r.body).error).toMatch(/ALLOWED_HOSTS|allowedHosts/);
    }
    for (const host of ['localhost', `127.0.0.1:${localPort}`, `[::1]:${localPort}`, 'hub.internal']) {
      const r = await mcp(host);
      expect(r.status, host).not.toBe(403);
      expect(r.status, host).toBeLessThan(500);
    }
  });
});
