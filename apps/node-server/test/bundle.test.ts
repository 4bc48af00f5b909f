// Across the gap (design 10.3): hub A → `hub mirror pull` → `hub bundle create` → a fresh data folder → `hub bundle
// import` → hub B with no source but the bundle's mirror (served by hub B itself, then by nginx) → the model host's own
// client and skopeo through hub B get every file with its index SHA-256.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { listFiles as hubListFiles } from '@hub/client';
import { buildFromDir, type DemoMirror, demoTreeDir, startDemoMirror } from '@hub/node-toolkit';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { downloadFile } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCreateCommand, bundleImportCommand } from '../src/cli-bundle.js';
import { mirrorPull } from '../src/cli-mirror.js';
import { createLogger } from '../src/logger.js';
import type { MirrorIo } from '../src/pull-choice.js';
import { type RunningHub, startServer } from '../src/server.js';
import { startNginx } from './nginx.js';

const run = promisify(execFile);
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const tmp = tempDirs(afterAll);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const quiet = createLogger({ level: 'silent' });
const GGUF = 'demo/tiny-llama-2-GGUF';
const BERT = 'demo/tiny-bert-synthetic';
const LEFT_OUT = 'acme/left-out';
const skopeo = await run('skopeo', ['--version']).then(
  () => true,
  () => false,
);

function io(): MirrorIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false, env: {} };
}

let tree: string;
let dataA: string;
let sourceA: DemoMirror;
let sourceB: DemoMirror;
let hubA: RunningHub;
let bundle: string;
const started: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

beforeAll(async () => {
  // hub A: the demo's real GGUF and multi-file model, and a SYNTHETIC model left out of the bundle, on two sources
  const data = await tmp('bundle-a-');
  dataA = data;
  tree = path.join(data, 'tree');
  await cp(path.join(demoTreeDir(), 'demo'), path.join(tree, 'demo'), { recursive: true });
  await mkdir(path.join(tree, LEFT_OUT), { recursive: true });
  await writeFile(
    path.join(tree, LEFT_OUT, 'weights.bin'),
    new Uint8Array(5000).map((_, i) => (i * 31) & 0xff),
  );
  sourceA = await startDemoMirror({ root: tree });
  sourceB = await startDemoMirror({ root: tree });
  started.push(sourceA, sourceB);
  await buildFromDir(new FsObjectStore(data), { dir: tree, sources: [{ name: 'source-a' }, { name: 'source-b' }], date: '2026-11-22' });
  hubA = await startServer({
    dataDir: data,
    port: 0,
    host: '127.0.0.1',
    logger: quiet,
    config: {
      demo: false,
      sources: [
        { name: 'source-a', display: 'Source A', token: 'a', kind: 'http', url: sourceA.template },
        { name: 'source-b', display: 'Source B', token: 'b', kind: 'http', url: sourceB.template },
      ],
      order: ['source-a', 'source-b'],
    },
  });
  started.push(hubA);
  // an operator's mirror first, then the bundle of the same two models
  const pulled = await tmp('bundle-mirror-');
  const p = io();
  expect(await mirrorPull([pulled, GGUF, BERT, '--hub', hubA.url], p), p.lines.join('\n')).toBe(0);
  bundle = path.join(await tmp('bundle-out-'), 'day1');
  const b = io();
  expect(await bundleCreateCommand([bundle, GGUF, BERT, '--hub', hubA.url, '--from-mirror', pulled], b), b.lines.join('\n')).toBe(0);
  // the files came from the pulled mirror (re-hashed), none was downloaded again
  const events = b.lines.map((l) => JSON.parse(l));
  expect(events.filter((e) => e.event === 'file').every((e) => e.status === 'held')).toBe(true);
  expect(events.at(-1)).toMatchObject({ event: 'done', copied: 6, failed: 0 });
});

/** Start hub B on a fresh data folder holding only the imported bundle. */
async function importedHub(config: Record<string, unknown> = {}): Promise<{ hub: RunningHub; data: string }> {
  const data = await tmp('bundle-b-');
  const i = io();
  expect(await bundleImportCommand([bundle, '--data', data], i), i.lines.join('\n')).toBe(0);
  const hub = await startServer({ dataDir: data, port: 0, host: '127.0.0.1', logger: quiet, config });
  started.push(hub);
  return { hub, data };
}

/** Every file of both models through hub B with @huggingface/hub, each hashing to the index's SHA-256. */
async function downloadsThrough(hub: RunningHub, expectSource: string) {
  for (const id of [GGUF, BERT]) {
    const files = await hubListFiles({ hub: hub.url }, id);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const r = await fetch(`${hub.url}/${id}/resolve/main/${f.path}`, { redirect: 'manual' });
      expect(r.headers.get('x-hub-source'), `${f.path}: HTTP ${r.status}`).toBe('local-mirror');
      expect(r.headers.get('location')).toContain(expectSource);
      const blob = await downloadFile({ repo: id, path: f.path, hubUrl: hub.url });
      expect(sha256(new Uint8Array(await (blob as Blob).arrayBuffer())), `${id}/${f.path}`).toBe(f.sha256);
    }
  }
}

async function leftOutIs503(hub: RunningHub) {
  const r = await fetch(`${hub.url}/${LEFT_OUT}/resolve/main/weights.bin`, { redirect: 'manual' });
  expect(r.status).toBe(503);
  expect(r.headers.get('location')).toBeNull();
  expect((await r.json()).error).toMatch(/local mirror local-mirror does not hold its bytes/);
}

describe('a bundle carried to a hub with no other source', () => {
  it('hub B serves the imported day from its own mirror on the next port', async () => {
    const { hub, data } = await importedHub();
    const descriptor = async (h: RunningHub) => (await (await fetch(`${h.url}/.well-known/model-hub.json`)).json()).catalog;
    expect(await descriptor(hub)).toBe(await descriptor(hubA));
    expect(hub.localMirror).toBeDefined();
    const health = await (await fetch(`${hub.url}/api/hub/health`)).json();
    expect(health.order[0]).toBe('local-mirror');
    expect(health.sources['local-mirror']).toMatchObject({ ok: true, reason: 'verified', mirror: { files: 6 } });
    // the index's own sources are unreachable from a closed network: never redirected to
    expect(health.sources['source-a']).toBeUndefined();
    // the mirror beside the hub, named by the host the client used (127.0.0.1 here)
    await downloadsThrough(hub, `http://127.0.0.1:${hub.localMirror?.port}/`);
    await leftOutIs503(hub);
    // the model page says which files the local mirror holds
    const page = await (await fetch(`${hub.url}/models/${GGUF}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toMatch(/local mirror.*2 of 2 files/s);
    if (skopeo) {
      const out = await tmp('bundle-skopeo-');
      const host = new URL(hub.url).host;
      await run('skopeo', ['copy', '--src-tls-verify=false', `docker://${host}/${GGUF.toLowerCase()}:F16`, `dir:${out}`], {
        timeout: 60_000,
      });
      const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8'));
      for (const d of [manifest.config, ...manifest.layers]) {
        const bytes = await readFile(path.join(out, d.digest.slice('sha256:'.length)));
        expect(`sha256:${sha256(bytes)}`).toBe(d.digest);
      }
      const gguf = (await hubListFiles({ hub: hub.url }, GGUF)).find((f) => f.path.endsWith('.gguf'));
      expect(manifest.layers.map((l: { digest: string }) => l.digest)).toContain(`sha256:${gguf?.sha256}`);
    }
    await hub.close();
    started.splice(started.indexOf(hub), 1);
    const verified = await run(process.execPath, [CLI, 'index', 'verify', '--data', data]);
    expect(verified.stdout).toMatch(/ 0 faults/);
  });

  it('hub B redirects to an nginx serving the same folder when the config names it', async () => {
    const data = await tmp('bundle-nginx-');
    const i = io();
    expect(await bundleImportCommand([bundle, '--data', data], i)).toBe(0);
    const nginx = await mirrorNginx(path.join(data, 'mirror'));
    started.push(nginx);
    const hub = await startServer({
      dataDir: data,
      port: 0,
      host: '127.0.0.1',
      logger: quiet,
      config: { sources: [{ name: 'local-mirror', kind: 'mirror', url: nginx.url }] },
    });
    started.push(hub);
    expect(hub.localMirror).toBeUndefined();
    await downloadsThrough(hub, nginx.url);
    await leftOutIs503(hub);
    // nginx answered Range requests for the mirror's files
    const held = (await hubListFiles({ hub: hub.url }, GGUF)).find((f) => f.path.endsWith('.gguf'));
    const r = await fetch(`${nginx.url}sha256/${held?.sha256}`, { headers: { range: 'bytes=0-3' } });
    expect(r.status).toBe(206);
    expect(new TextDecoder().decode(await r.arrayBuffer())).toBe('GGUF');
  });
});

describe('the next day', () => {
  it("a second day's bundle imports on top of the first and chains to it", async () => {
    const { hub: b, data } = await importedHub();
    const day1 = (await (await fetch(`${b.url}/.well-known/model-hub.json`)).json()).catalog;
    await b.close();
    started.splice(started.indexOf(b), 1);
    // hub A indexes a second day (one model changed) and switches to it
    await writeFile(path.join(tree, BERT, 'README.md'), '# SYNTHETIC second day\n');
    await buildFromDir(new FsObjectStore(dataA), { dir: tree, sources: [{ name: 'source-a' }, { name: 'source-b' }], date: '2026-11-23' });
    await hubA.reload();
    const day2 = path.join(path.dirname(bundle), 'day2');
    expect(await bundleCreateCommand([day2, BERT, '--hub', hubA.url], io())).toBe(0);
    const i = io();
    expect(await bundleImportCommand([day2, '--data', data], i), i.lines.join('\n')).toBe(0);
    expect(JSON.parse(i.lines.at(-1) as string)).toMatchObject({ date: '2026-11-23', filesNew: 1 });
    const hub = await startServer({ dataDir: data, port: 0, host: '127.0.0.1', logger: quiet });
    started.push(hub);
    const archive = await (await fetch(`${hub.url}/api/hub/archive`)).json();
    expect(archive.days.map((d: { date: string; prev: string | null }) => [d.date, d.prev])).toEqual([
      ['2026-11-23', day1],
      ['2026-11-22', null],
    ]);
    // the changed file comes from the mirror; yesterday's files are still held
    expect((await fetch(`${hub.url}/${BERT}/resolve/main/README.md`, { redirect: 'manual' })).headers.get('x-hub-source')).toBe(
      'local-mirror',
    );
    expect((await fetch(`${hub.url}/${GGUF}/resolve/main/README.md`, { redirect: 'manual' })).headers.get('x-hub-source')).toBe(
      'local-mirror',
    );
    await hub.close();
    started.splice(started.indexOf(hub), 1);
    const verified = await run(process.execPath, [CLI, 'index', 'verify', '--data', data]);
    expect(verified.stdout).toMatch(/2 catalogs, 0 faults/);
    // a data folder on another chain refuses the bundle, taking nothing
    const other = await tmp('bundle-other-');
    await buildFromDir(new FsObjectStore(other), { dir: tree, sources: [{ name: 'source-a' }], date: '2026-11-20' });
    const refused = io();
    await expect(bundleImportCommand([day2, '--data', other], refused)).rejects.toThrow(/not in the bundle's archive/);
  });
});

/**
 * nginx-light on 127.0.0.1 serving a mirror folder as a static byte source (the shared test nginx: its own config, run
 * folder and pid; stopped by it).
 */
async function mirrorNginx(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const nginx = await startNginx(
    await tmp('bundle-nginx-run-'),
    `  types { application/json json; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location /sha256/ { add_header Access-Control-Allow-Origin *; }
    location = /manifest.json { add_header Cache-Control no-cache; }
    location / { return 404; }
  }`,
    [port],
  );
  return { url: `http://127.0.0.1:${port}/`, close: nginx.stop };
}
