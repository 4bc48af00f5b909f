import net from 'node:net';
import { BAD_HOSTS } from '@hub/hub/testing';
import { rawHttp as raw } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

let hub: TestHub;
let port: number;
beforeAll(async () => {
  hub = await startTestHub();
  port = Number(new URL(hub.url).port);
});
afterAll(async () => {
  await hub.close();
});

/** One route per route group, with the error shape of its group (the route's own, never a text/plain 400). */
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

function expectShape(shape: string, r: { head: string; body: string }): void {
  if (shape === 'text') {
    expect(r.head).toMatch(/\r\ncontent-type: text\/plain/i);
    expect(r.body).toMatch(/Host/);
    return;
  }
  expect(r.head).toMatch(/\r\ncontent-type: application\/json/i);
  const value = JSON.parse(r.body);
  if (shape === 'hub') expect(typeof value.error).toBe('string');
  if (shape === 'oci') expect(value.errors[0].code).toBe('BAD_REQUEST');
  if (shape === 'objects') expect(value.code).toBe('BAD_REQUEST');
}

describe('the Host header and the request target (issues 19, 26), over a raw socket', () => {
  for (const g of GROUPS) {
    // BAD_HOSTS: every invalid Host of issues 19 and 26 (the WHATWG URL host parser rejects each, or it holds a delimiter)
    it(`answers 400 in the ${g.shape} shape for every invalid Host on ${g.method} ${g.path}, logging no error`, async () => {
      const before = hub.logs.length;
      for (const host of BAD_HOSTS) {
        const r = await raw(port, `${g.method} ${g.path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
        expect(r.status, `Host: ${host}`).toBe(400);
        expectShape(g.shape, r);
      }
      const lines = hub.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    });
  }

  it('never lets a "/", "?" or "#" inside Host choose the route', async () => {
    const cases = [
      ['GET /llms.txt', `127.0.0.1:${port}/api/models?limit=1#`],
      ['GET /robots.txt', `127.0.0.1:${port}/api/account/me?`],
      ['POST /api/v1/objects', `127.0.0.1:${port}/api`],
    ];
    for (const [line, host] of cases) {
      const r = await raw(port, `${line} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).toBe(400);
      expect(r.body).not.toContain('"id"');
    }
  });

  it('answers an absolute-form target like its origin-form twin', async () => {
    const origin = await raw(port, `GET /api/models?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    const absolute = await raw(
      port,
      `GET http://127.0.0.1:${port}/api/models?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(origin.status).toBe(200);
    expect(absolute.status).toBe(200);
    expect(absolute.body).toBe(origin.body);
  });

  it('accepts valid hosts: loopback names: a name, an IPv4 address with port and a bracketed IPv6 literal', async () => {
    for (const host of ['localhost', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`]) {
      const r = await raw(port, `GET /api/models?limit=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).toBe(200);
    }
  });

  it('logs a body cut off mid-upload as an aborted request, with no error-level line', async () => {
    const before = hub.logs.length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
            'Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":"2.0",',
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 500));
    const lines = hub.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.msg === 'request aborted by the client')).toBe(true);
  });
});
