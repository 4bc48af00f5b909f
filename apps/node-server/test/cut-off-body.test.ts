/**
 * Issue 19: a request body cut off mid-upload is the client's doing, logged as an aborted request (info), never at
 * error level. host-header.test.ts covers /mcp; here the other route that reads a large body: an authorised publish
 * (objects group; the OCI registry is read-only and reads no body), over a raw socket that closes half-way through the declared length.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

const TOKEN = 'cut-off-publisher-token';
let hub: TestHub;
let port: number;
beforeAll(async () => {
  hub = await startTestHub({ config: { publisherTokens: [TOKEN], registryTokens: [TOKEN] } });
  port = Number(new URL(hub.url).port);
});
afterAll(async () => {
  await hub.close();
});

/** Send the head and part of the body, then close the socket. */
function cutOff(head: string, part: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head + part);
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

async function linesDuring(fn: () => Promise<void>) {
  const before = hub.logs.length;
  await fn();
  await new Promise((r) => setTimeout(r, 1500));
  return hub.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown });
}

describe('a body cut off mid-upload (issue 19)', () => {
  it('on an authorised publish: no error-level line', async () => {
    const lines = await linesDuring(() =>
      cutOff(
        `POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          'X-Object-Kind: synthetic.test\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n',
        'SYNTHETIC partial object bytes',
      ),
    );
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request aborted by the client').map((l) => l.level)).toEqual([30]);
  });

  it('the same publish, sent whole, reaches the route (so the cut-off one read its body)', async () => {
    const r = await fetch(`${hub.url}/api/v1/objects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-object-kind': 'synthetic.test', 'content-type': 'application/octet-stream' },
      body: 'SYNTHETIC partial object bytes',
    });
    expect(r.status).toBe(201);
  });

  it('the hub still answers afterwards', async () => {
    const r = await fetch(`${hub.url}/api/models?limit=1`);
    expect(r.status).toBe(200);
  });
});
