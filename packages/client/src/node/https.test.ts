// `nodeGetBytes` over https: (node:https, as the hub's sources usually are): a certificate the client trusts is
// read, redirects from an http: hub keep its X-Hub-Source, and a certificate nobody vouches for is refused.
// The certificate is SYNTHETIC, made for this run by the openssl CLI in a temp folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeGetBytes } from './transfer.js';

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const BODY = Buffer.alloc(300_000);
for (let i = 0; i < BODY.length; i++) BODY[i] = (i * 5 + 1) & 0xff;
let cert: Buffer;
let source: https.Server;
let hub: http.Server;
let sourceUrl = '';
let hubUrl = '';

beforeAll(async () => {
  if (!hasOpenssl) return;
  const dir = mkdtempSync(join(tmpdir(), 'client-tls-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')].concat([
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'));
  source = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (_req, res) => {
    res.writeHead(200, { 'content-length': String(BODY.length) }).end(BODY);
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  sourceUrl = `https://127.0.0.1:${(source.address() as AddressInfo).port}/file.bin`;
  hub = http.createServer((_req, res) => res.writeHead(302, { location: sourceUrl, 'x-hub-source': 'tls-source' }).end());
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
  hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/o/m/resolve/main/file.bin`;
});
afterAll(() => {
  source?.close();
  hub?.close();
  https.globalAgent.options.ca = undefined;
});

async function drain(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of body) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

describe.skipIf(!hasOpenssl)('nodeGetBytes over https: (needs openssl, to make the test certificate)', () => {
  it('reads a trusted source after the hub redirect, keeping the X-Hub-Source the hub named', async () => {
    https.globalAgent.options.ca = [cert];
    try {
      const r = await nodeGetBytes(hubUrl, { headers: {}, signal: new AbortController().signal });
      expect(r.status).toBe(200);
      expect(r.redirected).toBe(true);
      expect(r.hubSource).toBe('tls-source');
      expect(r.headers.get('Content-Length')).toBe(String(BODY.length));
      expect((await drain(r.body)).equals(BODY)).toBe(true);
    } finally {
      https.globalAgent.options.ca = undefined;
    }
  });

  it('refuses a certificate no trusted authority signed', async () => {
    // a fresh agent-free request: the session cached by the test above must not stand in for the check
    https.globalAgent.destroy();
    await expect(nodeGetBytes(sourceUrl, { headers: {}, signal: new AbortController().signal })).rejects.toThrow(
      /self[- ]signed|unable to verify|certificate/i,
    );
  });
});
