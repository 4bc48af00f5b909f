// The servers beside the hub (issue 37, defect 1): the data folder's mirror that `hub serve --data` serves after
// `hub bundle import`, and the demo mirror. Each listens where the hub listens, and each redirect to it names the host
// the client reached the hub by (validated by the host policy) or baseUrl's, never sending an https client to http.
// Over real HTTP on loopback addresses: 127.0.0.1, 127.0.0.2 and localhost.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCreateCommand, bundleImportCommand } from '../src/cli-bundle.js';
import { mirrorVerify } from '../src/cli-mirror.js';
import { createLogger } from '../src/logger.js';
import type { MirrorIo } from '../src/pull-choice.js';
import { type RunningHub, type StartOptions, startServer } from '../src/server.js';
import { startTestHub, type TestHub } from './helpers.js';

const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
// SYNTHETIC model files
const WEIGHTS = new Uint8Array(3000).map((_, i) => (i * 7) & 0xff);
const MODEL = 'synthetic-org/beside';
const OLLAMA = 'ollama/0.34.2 (amd64 linux) Go/go1.24.0';

const started: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

function io(): MirrorIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false, env: {} };
}

/** GET `path` from `address:port` with the given Host header, redirects not followed. */
async function ask(address: string, port: number, hostHeader: string, path: string, headers: Record<string, string> = {}) {
  const { request } = await import('node:http');
  return new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ host: address, port, path, headers: { host: hostHeader, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let bundle: string;
let hubA: TestHub;

beforeAll(async () => {
  hubA = await startTestHub({ trees: { [MODEL]: { 'weights.bin': WEIGHTS } } });
  started.push(hubA);
  bundle = path.join(await tmp('beside-bundle-'), 'day1');
  const b = io();
  expect(await bundleCreateCommand([bundle, MODEL, '--hub', hubA.url], b), b.lines.join('\n')).toBe(0);
}, 60_000);

/** `hub bundle import` into a fresh folder, then `hub serve --data` on `host` with `config`. */
async function importedHub(host: string, config: StartOptions['config'] = {}): Promise<RunningHub> {
  const data = await tmp('beside-b-');
  const i = io();
  expect(await bundleImportCommand([bundle, '--data', data], i), i.lines.join('\n')).toBe(0);
  const hub = await startServer({ dataDir: data, port: 0, host, logger: quiet, config });
  started.push(hub);
  dataDirs.set(hub, data);
  return hub;
}

const RESOLVE = `/${MODEL}/resolve/main/weights.bin`;
const dataDirs = new Map<RunningHub, string>();
const mirrorDirOf = (hub: RunningHub) => path.join(dataDirs.get(hub) as string, 'mirror');

/** Poll `ok` every 50 ms for up to 5 s (the hub re-reads a changed mirror manifest at once, not at the next probe round). */
async function waitUntil(ok: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
}

describe("the data folder's mirror after hub bundle import", () => {
  it('with --host 0.0.0.0: listens on every interface; each redirect names the host the client used, and the bytes come', async () => {
    const hub = await importedHub('0.0.0.0');
    const mirrorPort = hub.localMirror?.port as number;
    for (const [address, name] of [
      ['127.0.0.1', '127.0.0.1'],
      ['127.0.0.2', '127.0.0.2'],
      ['127.0.0.1', 'localhost'],
    ] as const) {
      const r = await ask(address, hub.port, `${name}:${hub.port}`, RESOLVE);
      expect(r.status, `${name}: ${r.body}`).toBe(302);
      const loc = new URL(r.location as string);
      expect([loc.protocol, loc.host], name).toEqual(['http:', `${name}:${mirrorPort}`]);
      const bytes = new Uint8Array(await (await fetch(loc)).arrayBuffer());
      expect(sha256(bytes), name).toBe(sha256(WEIGHTS));
    }
    // A name a client on the network used: the redirect names it, on the mirror's port.
    const lan = await ask('127.0.0.1', hub.port, `hub.lan.example:${hub.port}`, RESOLVE);
    expect([lan.status, new URL(lan.location as string).host]).toEqual([302, `hub.lan.example:${mirrorPort}`]);
  });

  it('with --host 127.0.0.2: listens there, and the redirect names 127.0.0.2', async () => {
    const hub = await importedHub('127.0.0.2');
    const r = await ask('127.0.0.2', hub.port, `127.0.0.2:${hub.port}`, RESOLVE);
    expect(r.status, r.body).toBe(302);
    expect(new URL(r.location as string).host).toBe(`127.0.0.2:${hub.localMirror?.port}`);
    expect(sha256(new Uint8Array(await (await fetch(r.location as string)).arrayBuffer()))).toBe(sha256(WEIGHTS));
  });

  it("with baseUrl: names baseUrl's host whatever Host says; an https baseUrl is never sent to the plain-http mirror", async () => {
    const plain = await importedHub('127.0.0.1', { baseUrl: 'http://127.0.0.1:9' });
    const r = await ask('127.0.0.1', plain.port, `localhost:${plain.port}`, RESOLVE);
    expect([r.status, new URL(r.location as string).host]).toEqual([302, `127.0.0.1:${plain.localMirror?.port}`]);

    const tls = await importedHub('127.0.0.1', { baseUrl: 'https://models.example.org' });
    for (const path of [RESOLVE, `/v2/${MODEL}/blobs/sha256:${sha256(WEIGHTS)}`]) {
      const res = await ask('127.0.0.1', tls.port, 'models.example.org', path);
      expect(res.location, path).toBeUndefined();
      expect(res.status, path).toBe(503);
      expect(res.body, path).toContain('plain http');
    }
  });
});

describe('an air-gapped hub whose mirror lacks a file', () => {
  it('HEAD of an OCI blob answers as GET does (503); the 503 says to import a bundle that holds the bytes', async () => {
    const hub = await importedHub('127.0.0.1');
    const blob = `${hub.url}/v2/${MODEL}/blobs/sha256:${sha256(WEIGHTS)}`;
    expect((await fetch(blob, { method: 'HEAD' })).status).toBe(200);
    // `hub mirror verify` finds the file damaged and moves it aside; the hub stops redirecting to it at once.
    const file = path.join(mirrorDirOf(hub), 'sha256', sha256(WEIGHTS));
    const bytes = await readFile(file);
    bytes[0] = (bytes[0] as number) ^ 1;
    await writeFile(file, bytes);
    const v = io();
    expect(await mirrorVerify([mirrorDirOf(hub)], v), v.lines.join('\n')).toBe(1);
    await waitUntil(async () => (await fetch(`${hub.url}${RESOLVE}`, { redirect: 'manual' })).status === 503);
    const r = await fetch(`${hub.url}${RESOLVE}`, { redirect: 'manual' });
    expect(r.headers.get('location')).toBeNull();
    expect((await r.json()).error).toMatch(/does not hold its bytes .*moved aside as damaged.*import a bundle that holds them/);
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(blob, { method, redirect: 'manual' });
      expect([res.status, res.headers.get('retry-after')], method).toEqual([503, expect.any(String)]);
    }
    const get = await (await fetch(blob, { redirect: 'manual' })).json();
    expect(get.errors[0].message).toMatch(/import a bundle that holds them/);
  });
});

describe('the demo mirror', () => {
  let hub: RunningHub;
  beforeAll(async () => {
    hub = await startServer({ dataDir: await tmp('beside-demo-'), port: 0, host: '0.0.0.0', logger: quiet });
    started.push(hub);
  });
  const DEMO = '/demo/tiny-bert-synthetic/resolve/main/config.json';

  it('names the host the client used: 127.0.0.1, 127.0.0.2 and localhost each get their own name, and the bytes come', async () => {
    const port = hub.mirror?.port as number;
    for (const [address, name] of [
      ['127.0.0.1', '127.0.0.1'],
      ['127.0.0.2', '127.0.0.2'],
      ['127.0.0.1', 'localhost'],
    ] as const) {
      const r = await ask(address, hub.port, `${name}:${hub.port}`, DEMO);
      expect(r.status, `${name}: ${r.body}`).toBe(302);
      expect(new URL(r.location as string).host, name).toBe(`${name}:${port}`);
      expect((await fetch(r.location as string)).status, name).toBe(200);
    }
  });

  it("Ollama's blob GET alone is sent to the other loopback spelling (it follows a redirect only to another host name)", async () => {
    const tags = JSON.parse(
      (
        await ask('127.0.0.1', hub.port, `127.0.0.1:${hub.port}`, '/v2/demo/tiny-llama-2-gguf/manifests/F16', {
          'user-agent': OLLAMA,
          accept: 'application/vnd.docker.distribution.manifest.v2+json',
        })
      ).body,
    );
    const digest = tags.layers[0].digest as string;
    const blob = `/v2/demo/tiny-llama-2-gguf/blobs/${digest}`;
    const port = hub.mirror?.port as number;
    for (const [name, other] of [
      ['127.0.0.1', 'localhost'],
      ['localhost', '127.0.0.1'],
    ]) {
      const ollama = await ask('127.0.0.1', hub.port, `${name}:${hub.port}`, blob, { 'user-agent': OLLAMA });
      expect([ollama.status, new URL(ollama.location as string).host], name).toEqual([307, `${other}:${port}`]);
      const other_ = await ask('127.0.0.1', hub.port, `${name}:${hub.port}`, blob, { 'user-agent': 'containerd/1.6.20' });
      expect([other_.status, new URL(other_.location as string).host], name).toEqual([307, `${name}:${port}`]);
    }
  });
});
