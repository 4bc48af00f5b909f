import { rawHttp as raw } from '@hub/node-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * Issue 26 on node-server over real sockets: the MCP conformance suite's `dns-rebinding-protection` requests, a
 * foreign `Host` never echoed into any answer, the demo mirror's redirect named by the client's host, and where the
 * hub listens.
 */

function initialize(version = '2025-11-25'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'conformance-dns-rebinding-test', version: '1.0.0' } },
  });
}

function postMcp(port: number, host: string, origin?: string, body = initialize()) {
  return raw(
    port,
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}Content-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    10_000,
  );
}

function get(port: number, path: string, host: string, extra = '') {
  return raw(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`, 10_000);
}

let local: TestHub;
let localPort: number;
beforeAll(async () => {
  local = await startTestHub();
  localPort = Number(new URL(local.url).port);
});
afterAll(async () => {
  await local?.close();
});

describe('the MCP conformance scenario dns-rebinding-protection, request by request (loopback hub)', () => {
  it('refuses a foreign Host with its Origin (the scenario), without Origin, and a foreign Origin: 4xx {error} naming allowedHosts', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['evil.example.com', 'http://evil.example.com'],
      ['evil.example.com', undefined],
      [`127.0.0.1:${localPort}`, 'http://evil.example.com'],
      [`localhost:${localPort}`, 'null'],
    ];
    for (const [host, origin] of cases) {
      const r = await postMcp(localPort, host, origin);
      expect(r.status, `${host} ${origin}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${host} ${origin}`).toBeLessThan(500);
      const error = JSON.parse(r.body).error as string;
      expect(error).toMatch(/allowedHosts/);
      expect(r.body).not.toContain('evil.example');
    }
  });

  it('accepts localhost:PORT (with its own Origin, as the scenario sends), 127.0.0.1:PORT and [::1]:PORT: 2xx', async () => {
    const cases: Array<[string, string | undefined]> = [
      [`localhost:${localPort}`, `http://localhost:${localPort}`],
      [`127.0.0.1:${localPort}`, `http://127.0.0.1:${localPort}`],
      [`[::1]:${localPort}`, `http://[::1]:${localPort}`],
      [`127.0.0.1:${localPort}`, undefined],
    ];
    for (const [host, origin] of cases) {
      const r = await postMcp(localPort, host, origin);
      expect(r.status, `${host} ${origin}`).toBe(200);
      expect(JSON.parse(r.body).result.serverInfo).toBeTruthy();
    }
  });
});

/** Paths whose answers print absolute URLs or redirect: every place a Host could leak into. */
const PRINTING = [
  '/agent.md',
  '/llms.txt',
  '/',
  '/.well-known/model-hub.json',
  '/.well-known/agent-card.json',
  '/openapi.json',
  '/api/models?limit=1',
  '/api/hub/health',
  '/demo/tiny-bert-synthetic/resolve/main/config.json',
  '/v2/_catalog?n=1',
];

describe('a foreign Host (issue 26)', () => {
  let public_: TestHub;
  let publicPort: number;
  beforeAll(async () => {
    // A public deployment: every address, and the origin it is known by.
    public_ = await startTestHub({ host: '0.0.0.0', config: { baseUrl: 'https://models.example.org/' } });
    publicPort = Number(new URL(public_.url).port);
  });
  afterAll(async () => {
    await public_?.close();
  });

  it('with baseUrl set, evil.example appears in no header and no body; absolute URLs name baseUrl', async () => {
    for (const path of PRINTING) {
      const r = await get(publicPort, path, 'evil.example');
      // The demo mirror speaks plain http beside the hub, and an https client is never sent to http (issue 37): 503.
      if (path.includes('/resolve/')) expect(r.status, path).toBe(503);
      else expect(r.status, path).toBeLessThan(500);
      expect(`${r.head}\n${r.body}`, path).not.toContain('evil.example');
    }
    const agent = await get(publicPort, '/agent.md', 'evil.example');
    expect(agent.body).toContain('https://models.example.org/api/models');
    const models = await get(publicPort, '/api/models?limit=1', 'evil.example');
    expect(models.head).toMatch(/\r\nlink: <https:\/\/models\.example\.org\/api\/models\?/i);
    const mcp = await postMcp(
      publicPort,
      'evil.example',
      undefined,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_download', arguments: { model: 'demo/tiny-bert-synthetic' } },
      }),
    );
    expect(mcp.status).toBe(200);
    expect(mcp.body).not.toContain('evil.example');
    expect(mcp.body).toContain('https://models.example.org/demo/tiny-bert-synthetic/resolve/');
  });

  it('with no baseUrl, a loopback hub refuses it on every route, and the refusal does not repeat it', async () => {
    for (const path of PRINTING) {
      const r = await get(localPort, path, 'evil.example');
      expect(r.status, path).toBe(403);
      expect(`${r.head}\n${r.body}`, path).not.toContain('evil.example');
    }
  });
});

describe('the demo mirror redirect names the host the client reached the hub by (issue 26)', () => {
  const path = '/demo/tiny-bert-synthetic/resolve/main/config.json';

  it('on loopback: the name the client used (127.0.0.1 or localhost), with the mirror port, and the bytes come', async () => {
    const mirrorPort = Number(new URL(local.mirrorUrl).port);
    const a = await get(localPort, path, `127.0.0.1:${localPort}`);
    expect(a.status).toBe(302);
    const locA = /\r\nlocation: (\S+)/i.exec(a.head)?.[1] as string;
    expect(new URL(locA).host).toBe(`127.0.0.1:${mirrorPort}`);
    const b = await get(localPort, path, `localhost:${localPort}`);
    const locB = /\r\nlocation: (\S+)/i.exec(b.head)?.[1] as string;
    expect(new URL(locB).host).toBe(`localhost:${mirrorPort}`);
    for (const loc of [locA, locB]) {
      const res = await fetch(loc);
      expect(res.status, loc).toBe(200);
      expect(JSON.parse(await res.text())).toBeTruthy();
    }
  });

  it('from another machine: the name or address that machine used, with the mirror port', async () => {
    const hub = await startTestHub({ host: '0.0.0.0' });
    try {
      const port = Number(new URL(hub.url).port);
      const mirrorPort = Number(new URL(hub.mirrorUrl).port);
      for (const host of ['192.0.2.7', 'hub.lan.example']) {
        const r = await get(port, path, `${host}:${port}`);
        expect(r.status, host).toBe(302);
        const loc = /\r\nlocation: (\S+)/i.exec(r.head)?.[1] as string;
        expect(new URL(loc).host, host).toBe(`${host}:${mirrorPort}`);
      }
      // the mirror listens where the hub does (every interface here), so that address is reachable
      expect(hub.running.listening).toBe(`0.0.0.0:${port}`);
    } finally {
      await hub.close();
    }
  });
});

describe('where the hub listens (issue 26)', () => {
  it('HOST and PORT decide the address, below the flags and above the config file; the default is loopback', () => {
    expect(resolveConfig({}, {}).host).toBe('127.0.0.1');
    expect(resolveConfig({}, { HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({ host: '0.0.0.0', port: 9000 });
    expect(resolveConfig({ host: '::1', port: '9001' }, { HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({ host: '::1', port: 9001 });
    expect(resolveConfig({}, { HOST: '' }).host).toBe('127.0.0.1');
    expect(() => resolveConfig({}, { PORT: '70000' })).toThrow(/0-65535/);
  });

  it('the start-up line names the address actually bound', async () => {
    const line = local.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'hub listening');
    expect(line?.listening).toBe(`127.0.0.1:${localPort}`);
    expect(line?.url).toBe(`http://127.0.0.1:${localPort}`);
  });
});
