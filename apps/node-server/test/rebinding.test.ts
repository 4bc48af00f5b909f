import net from 'node:net';
import { rawHttp } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

const MCP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rebinding-test', version: '0' } },
});

/** POST /mcp over a raw socket with the given Host and optional Origin; returns status and body. */
function postMcp(port: number, host: string, origin?: string): Promise<{ status: number; head: string; body: string }> {
  return rawHttp(
    port,
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}` +
      'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
      `Content-Length: ${Buffer.byteLength(MCP_BODY)}\r\nConnection: close\r\n\r\n${MCP_BODY}`,
    10_000,
  );
}

describe('DNS rebinding guard (issue 19)', () => {
  let local: TestHub;
  let open: TestHub;
  let localPort: number;
  let openPort: number;
  beforeAll(async () => {
    local = await startTestHub({ config: { allowedHosts: ['hub.lan.example'] } });
    open = await startTestHub({ host: '0.0.0.0' });
    localPort = Number(new URL(local.url).port);
    openPort = Number(new URL(open.url).port);
  });
  afterAll(async () => {
    await local.close();
    await open.close();
  });

  it('a loopback-bound hub refuses /mcp for a foreign Host with 403 {error} naming the setting', async () => {
    const r = await postMcp(localPort, 'evil.example');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toMatch(/allowedHosts/);
    // A refusal at the gate carries the headers every answer gets.
    expect(r.head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(r.head).toMatch(/\r\naccess-control-allow-origin: \*\r\n/i);
  });

  it('a loopback-bound hub refuses /mcp from a foreign Origin with 403 {error}', async () => {
    const r = await postMcp(localPort, `127.0.0.1:${localPort}`, 'https://evil.example');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toMatch(/allowedHosts/);
  });

  it('accepts localhost, 127.0.0.1, [::1] and a configured host', async () => {
    for (const host of [`localhost:${localPort}`, `127.0.0.1:${localPort}`, `[::1]:${localPort}`, 'hub.lan.example']) {
      const r = await postMcp(localPort, host);
      expect(r.status, host).toBe(200);
    }
    const r = await postMcp(localPort, 'localhost', `http://localhost:${localPort}`);
    expect(r.status).toBe(200);
  });

  it('a hub bound to 0.0.0.0 accepts any Host', async () => {
    for (const host of ['evil.example', 'models.example.org:8080']) {
      const r = await postMcp(openPort, host);
      expect(r.status, host).toBe(200);
    }
  });

  it('read routes keep Access-Control-Allow-Origin: * for a loopback Host', async () => {
    const r = await fetch(`${local.url}/api/models?limit=1`, { headers: { origin: 'https://evil.example' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('slow and abusive clients (issue 19)', () => {
  it('closes connections from one address beyond maxConnectionsPerAddress and keeps serving the rest', async () => {
    const hub = await startTestHub({ config: { maxConnectionsPerAddress: 3 } });
    const port = Number(new URL(hub.url).port);
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const s = net.connect(port, '127.0.0.1');
        await new Promise((r) => s.once('connect', r));
        sockets.push(s);
      }
      await new Promise((r) => setTimeout(r, 100));
      const extra = net.connect(port, '127.0.0.1');
      const closed = await new Promise<boolean>((resolve) => {
        extra.once('close', () => resolve(true));
        extra.once('error', () => resolve(true));
        setTimeout(() => resolve(false), 3000);
      });
      expect(closed).toBe(true);
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 200));
      expect((await fetch(`${hub.url}/api/models?limit=1`)).status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await hub.close();
    }
  });

  it('answers 408 to a client that never finishes its headers within headersTimeoutSeconds', async () => {
    const hub = await startTestHub({ config: { headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 } });
    const port = Number(new URL(hub.url).port);
    try {
      const text = await new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => s.write('GET /api/models HTTP/1.1\r\nHost: localhost\r\n'));
        const chunks: Buffer[] = [];
        s.on('data', (c) => chunks.push(c));
        s.on('close', () => resolve(Buffer.concat(chunks).toString()));
        s.on('error', () => resolve(Buffer.concat(chunks).toString()));
      });
      expect(text).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await hub.close();
    }
  }, 15_000);
});
