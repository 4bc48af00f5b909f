// Round 4: replicas share one data folder. Open blob uploads of bucket pushes live in DIR/uploads/, so a push that
// POSTs on one process, PATCHes on another and closes on the first works (it got 404 BLOB_UPLOAD_UNKNOWN when the
// sessions were in each process's memory). Real processes (the built CLI) over real HTTP; skopeo straight at and through
// a real nginx in front of `hub serve --workers 2`. SYNTHETIC bytes.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type HubProcess, hubProcesses } from './hub-process.js';
import { NGINX, startNginx } from './nginx.js';

const TOKEN = 'synthetic-shared-uploads-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** `bucketMaxBytes` of these hubs: each test's bucket stays far below it, except the one about the limit. */
const LIMIT = 3_000_000;
const run = promisify(execFile);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const tmp = tempDirs(afterAll);
const hasSkopeo = await run('skopeo', ['--version']).then(
  () => true,
  () => false,
);
/** SYNTHETIC bytes, made here. */
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed * 7 + (i >> 8)) & 0xff);

const hubProcess = hubProcesses(afterAll);

/** `hub serve` (the built CLI) on `data`; resolves once `ready` shows in its output or /-/ready answers. */
async function serve(data: string, extra: string[] = [], ready?: string): Promise<HubProcess> {
  const config = path.join(data, 'hub.json');
  if (!existsSync(config))
    await writeFile(config, JSON.stringify({ registryTokens: [TOKEN], demoMirrorPort: 0, logRequests: true, bucketMaxBytes: LIMIT }));
  return hubProcess({ args: ['--data', data, '--config', config, ...extra], ...(ready ? { ready } : {}) });
}

const errorCode = async (res: Response) => ((await res.json()) as { errors: Array<{ code: string }> }).errors[0]?.code;

describe.skipIf(!existsSync(CLI))('two hub processes on one data folder continue each other’s uploads (needs the built CLI)', () => {
  let data = '';
  let a: HubProcess;
  let b: HubProcess;
  beforeAll(async () => {
    data = await tmp('hub-shared-uploads-');
    a = await serve(data);
    b = await serve(data);
  }, 120_000);

  const bucket = (name: string) => `/v2/hub/buckets/${name}`;
  async function open(on: HubProcess, name: string): Promise<{ location: string; uuid: string }> {
    const res = await fetch(`${on.url}${bucket(name)}/blobs/uploads/`, { method: 'POST', headers: AUTH });
    expect(res.status).toBe(202);
    const location = res.headers.get('location') ?? '';
    return { location, uuid: location.slice(location.lastIndexOf('/') + 1) };
  }
  const patch = (on: HubProcess, location: string, body: Uint8Array<ArrayBuffer>, range: string) =>
    fetch(`${on.url}${location}`, {
      method: 'PATCH',
      headers: { ...AUTH, 'content-type': 'application/octet-stream', 'content-range': range },
      body,
    });
  const close = (on: HubProcess, location: string, digest: string, body?: Uint8Array<ArrayBuffer>) =>
    fetch(`${on.url}${location}?digest=${digest}`, {
      method: 'PUT',
      headers: { ...AUTH, 'content-type': 'application/octet-stream' },
      ...(body ? { body } : {}),
    });
  async function pulled(on: HubProcess, name: string, digest: string): Promise<string> {
    const res = await fetch(`${on.url}${bucket(name)}/blobs/${digest}`);
    expect(res.status).toBe(200);
    return `sha256:${sha256(new Uint8Array(await res.arrayBuffer()))}`;
  }

  it('POST on one, PATCH on the other, PUT on the first: the blob is stored and pulls back whole from both', async () => {
    const blob = bytes(300_000, 1);
    const digest = `sha256:${sha256(blob)}`;
    const { location } = await open(a, 'shared');
    const first = await patch(b, location, blob.subarray(0, 200_000), '0-199999');
    expect(first.status, await first.clone().text()).toBe(202);
    expect(first.headers.get('range')).toBe('0-199999');
    const status = await fetch(`${a.url}${location}`, { headers: AUTH });
    expect(status.status).toBe(204);
    expect(status.headers.get('range')).toBe('0-199999');
    const done = await close(a, location, digest, blob.subarray(200_000));
    expect(done.status, await done.clone().text()).toBe(201);
    expect(done.headers.get('docker-content-digest')).toBe(digest);
    expect(await pulled(b, 'shared', digest)).toBe(digest);
    expect(await pulled(a, 'shared', digest)).toBe(digest);
    // the session is gone from the data folder with its bytes
    expect((await readdir(path.join(data, 'uploads'))).filter((n) => !n.startsWith('.') && n !== 'locks')).toEqual([]);
  });

  it('a PATCH at the wrong offset from the second process is 416 with the Range the first recorded', async () => {
    const blob = bytes(1000, 2);
    const { location } = await open(a, 'offsets');
    expect((await patch(a, location, blob.subarray(0, 400), '0-399')).status).toBe(202);
    const again = await patch(b, location, blob.subarray(0, 400), '0-399');
    expect(again.status).toBe(416);
    expect(again.headers.get('range')).toBe('0-399');
    expect(await errorCode(again)).toBe('BLOB_UPLOAD_INVALID');
    const skip = await patch(b, location, blob.subarray(500), '500-999');
    expect(skip.status).toBe(416);
    expect(skip.headers.get('range')).toBe('0-399');
    expect((await patch(b, location, blob.subarray(400), '400-999')).status).toBe(202);
    expect((await close(a, location, `sha256:${sha256(blob)}`)).status).toBe(201);
  });

  it('the same chunk PATCHed to both processes at once is accepted once; the other gets 416', async () => {
    const chunk = bytes(1_000_000, 5);
    for (let round = 0; round < 5; round++) {
      const { location } = await open(a, 'race');
      const answers = await Promise.all([patch(a, location, chunk, '0-999999'), patch(b, location, chunk, '0-999999')]);
      expect(answers.map((r) => r.status).sort(), `round ${round}`).toEqual([202, 416]);
      const status = await fetch(`${b.url}${location}`, { headers: AUTH });
      expect(status.headers.get('range')).toBe('0-999999');
      expect((await fetch(`${a.url}${location}`, { method: 'DELETE', headers: AUTH })).status).toBe(204);
    }
  });

  it("the bucket's limit counts the other process's open uploads: the second one past it is 413", async () => {
    const first = await open(a, 'limited');
    const second = await open(b, 'limited');
    expect((await patch(a, first.location, bytes(2_000_000, 6), '0-1999999')).status).toBe(202);
    const over = await patch(b, second.location, bytes(2_000_000, 7), '0-1999999');
    expect(over.status).toBe(413);
    expect(await errorCode(over)).toBe('SIZE_INVALID');
    // the refused upload is gone; the first one goes on
    expect((await fetch(`${a.url}${second.location}`, { headers: AUTH })).status).toBe(404);
    expect((await fetch(`${b.url}${first.location}`, { headers: AUTH })).headers.get('range')).toBe('0-1999999');
    expect((await fetch(`${b.url}${first.location}`, { method: 'DELETE', headers: AUTH })).status).toBe(204);
  });

  it('a lock another process holds makes a PATCH 416; a lock left by a killed process (stale) is taken over', async () => {
    const blob = bytes(2000, 3);
    const { location, uuid } = await open(a, 'locks');
    expect((await patch(a, location, blob.subarray(0, 1000), '0-999')).status).toBe(202);
    // Another process holds the session's lock (fresh): nothing is appended.
    const lock = path.join(data, 'uploads', 'locks', `${uuid}.lock`);
    await mkdir(path.dirname(lock), { recursive: true });
    await writeFile(lock, JSON.stringify({ owner: 'a-killed-process', pid: 999999, host: 'elsewhere', since: new Date().toISOString() }));
    const held = await patch(b, location, blob.subarray(1000), '1000-1999');
    expect(held.status).toBe(416);
    expect(held.headers.get('range')).toBe('0-999');
    // Its holder was killed: the lock is not renewed, and an hour later it is stale.
    const old = new Date(Date.now() - 3600_000);
    await utimes(lock, old, old);
    const taken = await patch(b, location, blob.subarray(1000), '1000-1999');
    expect(taken.status, await taken.clone().text()).toBe(202);
    expect(existsSync(lock)).toBe(false);
    expect((await close(a, location, `sha256:${sha256(blob)}`)).status).toBe(201);
    expect(await pulled(b, 'locks', `sha256:${sha256(blob)}`)).toBe(`sha256:${sha256(blob)}`);
  });

  it('a process killed mid-write (bytes past the recorded length) resumes at the recorded length', async () => {
    const blob = bytes(5000, 4);
    const digest = `sha256:${sha256(blob)}`;
    const { location, uuid } = await open(a, 'killed');
    expect((await patch(a, location, blob.subarray(0, 2000), '0-1999')).status).toBe(202);
    // What a process killed after writing part of the next chunk and before recording it leaves: more bytes on disk
    // (here garbage, not the blob's), the recorded length unchanged.
    await appendFile(path.join(data, 'uploads', uuid, 'bytes'), bytes(1500, 99));
    const status = await fetch(`${b.url}${location}`, { headers: AUTH });
    expect(status.headers.get('range')).toBe('0-1999');
    const resumed = await patch(b, location, blob.subarray(2000, 4000), '2000-3999');
    expect(resumed.status, await resumed.clone().text()).toBe(202);
    const done = await close(a, location, digest, blob.subarray(4000));
    expect(done.status, await done.clone().text()).toBe(201);
    expect(await pulled(b, 'killed', digest)).toBe(digest);
  });

  it('an upload idle past UPLOAD_IDLE_SECONDS is swept with its bytes by the other process', async () => {
    const { location, uuid } = await open(a, 'idle');
    expect((await patch(a, location, bytes(50_000, 8), '0-49999')).status).toBe(202);
    const folder = path.join(data, 'uploads', uuid);
    expect(existsSync(path.join(folder, 'bytes'))).toBe(true);
    // its last request 16 minutes ago (the state file's mtime is when the session last had a request)
    const then = new Date(Date.now() - 16 * 60_000);
    await utimes(path.join(folder, 'state.json'), then, then);
    await open(b, 'another-bucket');
    expect(existsSync(folder)).toBe(false);
    const gone = await fetch(`${b.url}${location}`, { headers: AUTH });
    expect(gone.status).toBe(404);
    expect(await errorCode(gone)).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('an upload id that is not one (`../`, `..%2F`) is BLOB_UPLOAD_UNKNOWN and never reaches the data folder', async () => {
    // A folder beside uploads/ that looks like a session: a path built from the id would find it, or delete it.
    const victim = path.join(data, 'victim');
    await mkdir(victim, { recursive: true });
    await writeFile(path.join(victim, 'state.json'), JSON.stringify({ repository: 'hub/buckets/x', received: 0, reserved: 0 }));
    for (const id of ['..%2Fvictim', '..%2F..%2Fvictim', '%2E%2E%2Fvictim', 'victim%2F..%2F..%2Fvictim']) {
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE']) {
        const res = await fetch(`${b.url}${bucket('x')}/blobs/uploads/${id}${method === 'PUT' ? `?digest=sha256:${'0'.repeat(64)}` : ''}`, {
          method,
          headers: AUTH,
          ...(method === 'PATCH' || method === 'PUT' ? { body: new Uint8Array(3) } : {}),
        });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(await errorCode(res), `${method} ${id}`).toBe('BLOB_UPLOAD_UNKNOWN');
      }
    }
    // A literal `../` (no client normalisation): the path resolves to no upload route (405 on the bucket), and the
    // folder is untouched.
    const raw = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${b.url}${bucket('x')}/blobs/uploads/../../victim`, { method: 'DELETE', headers: AUTH }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect([404, 405]).toContain(raw);
    expect(JSON.parse(await readFile(path.join(victim, 'state.json'), 'utf8')).repository).toBe('hub/buckets/x');
  });
});

/** A SYNTHETIC OCI layout: four uncompressed layers, a config, one manifest tagged `latest`; its digests. */
async function layout(): Promise<{ dir: string; digests: string[] }> {
  const dir = await tmp('hub-shared-layout-');
  const blobs = path.join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const put = async (b: Uint8Array) => {
    await writeFile(path.join(blobs, sha256(b)), b);
    return { digest: `sha256:${sha256(b)}`, size: b.byteLength };
  };
  const layers = [];
  for (const [i, n] of [300_000, 1_200_000, 5000, 70_000].entries())
    layers.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...(await put(bytes(n, 10 + i))) });
  const config = await put(
    new TextEncoder().encode(
      JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) } }),
    ),
  );
  const manifest = await put(
    new TextEncoder().encode(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers,
      }),
    ),
  );
  await writeFile(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          ...manifest,
          annotations: { 'org.opencontainers.image.ref.name': 'latest' },
        },
      ],
    }),
  );
  return { dir, digests: [config.digest, manifest.digest, ...layers.map((l) => l.digest)] };
}

const skopeo = (args: string[]) =>
  run('skopeo', ['--insecure-policy', ...args], { timeout: 120_000 }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
  );

/**
 * skopeo copies a layout to `registry` (a two-worker hub, or nginx before one), then back; both workers answered
 * PATCHes and closing PUTs (each access-log line names its worker), and every blob pulled hashes to its digest.
 */
async function pushAcrossWorkers(hub: HubProcess, registry: string, more: () => Promise<string> = async () => ''): Promise<void> {
  const src = await layout();
  const target = `docker://${registry}/hub/buckets/workers:v1`;
  const push = await skopeo([
    'copy',
    '--preserve-digests',
    '--dest-tls-verify=false',
    '--dest-creds',
    `anyone:${TOKEN}`,
    `oci:${src.dir}:latest`,
    target,
  ]);
  expect(push.stderr + (await more())).toBe('');
  expect(push.code).toBe(0);
  const lines = hub.out
    .join('')
    .split('\n')
    .filter((l) => l.includes('"route":"/v2/hub/buckets/:bucket/blobs/uploads/:uuid"'))
    .map((l) => JSON.parse(l) as { method: string; worker?: number; status: number });
  for (const method of ['PATCH', 'PUT'])
    expect(new Set(lines.filter((l) => l.method === method).map((l) => l.worker)), method).toEqual(new Set([1, 2]));
  expect(lines.every((l) => l.status < 300)).toBe(true);
  const out = await tmp('hub-shared-pulled-');
  const pull = await skopeo(['copy', '--preserve-digests', '--src-tls-verify=false', target, `oci:${out}:v1`]);
  expect(pull.code, pull.stderr).toBe(0);
  const back = path.join(out, 'blobs', 'sha256');
  const got = await readdir(back);
  for (const d of src.digests) {
    const hex = d.slice('sha256:'.length);
    expect(got).toContain(hex);
    expect(sha256(await readFile(path.join(back, hex)))).toBe(hex);
  }
}

describe.skipIf(!existsSync(CLI) || !hasSkopeo)('skopeo pushes to hub serve --workers 2 (needs skopeo and the built CLI)', () => {
  it('straight at the cluster: skopeo opens a connection per upload request, so its uploads cross workers', async () => {
    // Seen here: every upload went POST on one worker, PATCH on the other, PUT on the first (node:cluster hands each
    // new connection to the next worker).
    const hub = await serve(await tmp('hub-shared-workers-'), ['--workers', '2'], 'every worker listens');
    await pushAcrossWorkers(hub, new URL(hub.url).host);
  }, 180_000);

  it.skipIf(!existsSync(NGINX))(
    'through nginx (a request-by-request balancer) in front of the cluster (needs nginx)',
    async () => {
      const hub = await serve(await tmp('hub-shared-workers-'), ['--workers', '2'], 'every worker listens');
      // nginx opens a new connection to the hub for every request (no upstream keepalive); nginx's own default body
      // limit (1 MiB) would refuse bucket chunks, hence client_max_body_size (docs/operations.md has the same lines).
      const front = await freePort();
      const nginx = await startNginx(
        await tmp('hub-shared-nginx-'),
        `
  upstream hub { server ${new URL(hub.url).host}; }
  server {
    listen 127.0.0.1:${front};
    client_max_body_size 256m;
    proxy_request_buffering off;
    location / {
      proxy_pass http://hub;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
    }
  }`,
        [front],
      );
      try {
        await pushAcrossWorkers(hub, `127.0.0.1:${front}`, nginx.errors);
      } finally {
        await nginx.stop();
      }
    },
    180_000,
  );
});
