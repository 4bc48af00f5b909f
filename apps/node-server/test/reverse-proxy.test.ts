import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hub/node-toolkit/testing';
import { downloadFile } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';
import { startNginx, type TestNginx } from './nginx.js';

/**
 * Issue 26: node-server behind a real reverse proxy, Debian's nginx (nginx-light), started here with its own
 * config, prefix, pid and error log in a temp folder on 127.0.0.1 ports and stopped by its pid. One nginx serves
 * three blocks: plain HTTP and TLS (a self-signed certificate made here) in front of a hub with `trustProxy`, and
 * plain HTTP in front of a hub without it. Each block sends `X-Forwarded-Proto $scheme` and
 * `X-Forwarded-Host $http_host`, as the README's block does.
 */
const MODEL = 'demo/tiny-bert-synthetic';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS GET trusting only the certificate made for this test. */
function httpsGet(url: string, ca: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')));
  });
}

let dir: string;
let nginx: TestNginx | undefined;
let trusted: TestHub;
let untrusted: TestHub;
let plainPort: number;
let tlsPort: number;
let untrustedPort: number;
let ca: Buffer;

function block(listen: string, upstream: string): string {
  return `
  server {
    listen ${listen};
    ${listen.includes('ssl') ? `ssl_certificate ${dir}/cert.pem; ssl_certificate_key ${dir}/key.pem;` : ''}
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_redirect off;
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }`;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-nginx-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${dir}/key.pem`,
      '-out',
      `${dir}/cert.pem`,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  ca = await readFile(`${dir}/cert.pem`);
  trusted = await startTestHub({ config: { trustProxy: true } });
  untrusted = await startTestHub();
  [plainPort, tlsPort, untrustedPort] = [await freePort(), await freePort(), await freePort()];
  nginx = await startNginx(
    dir,
    [
      block(`127.0.0.1:${plainPort}`, trusted.url),
      block(`127.0.0.1:${tlsPort} ssl`, trusted.url),
      block(`127.0.0.1:${untrustedPort}`, untrusted.url),
    ].join('\n'),
    [plainPort, tlsPort, untrustedPort],
  );
}, 120_000);

afterAll(async () => {
  await nginx?.stop();
  await trusted?.close();
  await untrusted?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('behind nginx with trustProxy (issue 26)', () => {
  it('a download with @huggingface/hub through the proxy works and the bytes match the index', async () => {
    const proxy = `http://127.0.0.1:${plainPort}`;
    const blob = await downloadFile({ repo: MODEL, path: 'config.json', hubUrl: proxy });
    expect(blob).toBeTruthy();
    const bytes = Buffer.from(await (blob as Blob).arrayBuffer());
    const info = await (await fetch(`${proxy}/api/models/${MODEL}/tree/main`)).json();
    const entry = (info as Array<{ path: string; lfs?: { oid: string }; oid: string }>).find((e) => e.path === 'config.json');
    const sums = await (await fetch(`${proxy}/${MODEL}/resolve/main/SHA256SUMS`)).text();
    expect(sums).toContain(`${createHash('sha256').update(bytes).digest('hex')}  config.json`);
    expect(entry).toBeTruthy();
  });

  it('absolute URLs name the proxy: scheme https and its host, in the agent brief, descriptors, Link and a hub-made Location', async () => {
    const origin = `https://127.0.0.1:${tlsPort}`;
    const agent = await httpsGet(`${origin}/agent.md`, ca);
    expect(agent.status).toBe(200);
    expect(agent.body).toContain(`${origin}/api/models`);
    expect(agent.body).not.toContain(trusted.url);

    // the agent card and a section descriptor (its one-line commands print the origin)
    for (const p of ['/.well-known/agent-card.json', '/models?format=json']) {
      const d = await httpsGet(`${origin}${p}`, ca);
      expect(d.status, p).toBe(200);
      expect(d.body, p).toContain(origin);
      expect(d.body, p).not.toContain(trusted.url);
    }

    const models = await httpsGet(`${origin}/api/models?limit=1`, ca);
    expect(String(models.headers.link)).toMatch(new RegExp(`^<${origin.replace(/\./g, '\\.')}/api/models\\?`));

    // A blob the hub makes itself (the OCI config) answers 200 with a Location to itself: on the proxy's origin.
    const manifest = await httpsGet(`${origin}/v2/${MODEL}/manifests/latest`, ca, {
      accept: 'application/vnd.oci.image.manifest.v1+json',
    });
    expect(manifest.status).toBe(200);
    const config = (JSON.parse(manifest.body) as { config: { digest: string } }).config.digest;
    const blob = await httpsGet(`${origin}/v2/${MODEL}/blobs/${config}`, ca);
    expect(blob.status).toBe(200);
    expect(blob.headers.location).toBe(`${origin}/v2/${MODEL}/blobs/${config}`);
  });

  it('without trustProxy the same forwarded headers change nothing: URLs name the hub as the proxy reached it', async () => {
    const viaProxy = await fetch(`http://127.0.0.1:${untrustedPort}/agent.md`);
    const text = await viaProxy.text();
    expect(text).toContain(`${untrusted.url}/api/models`);
    expect(text).not.toContain(`:${untrustedPort}`);
    const direct = await fetch(`${untrusted.url}/api/models?limit=1`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example', forwarded: 'proto=https;host=proxy.example' },
    });
    expect(direct.headers.get('link')).toMatch(new RegExp(`^<${untrusted.url.replace(/\./g, '\\.')}/api/models\\?`));
  });
});
