// Buckets through real clients: skopeo pushes an OCI layout to hub/buckets/{name} and pulls it back; a push without
// the token and a blob with the wrong digest store nothing; kill -9 of the server during a push leaves a store that
// `hub index verify` passes (issue 14).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';
import { CLI, hubProcesses } from './hub-process.js';

const run = promisify(execFile);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const TOKEN = 'bucket-registry-token';
const hasSkopeo = await run('skopeo', ['--version']).then(
  () => true,
  () => false,
);
if (!hasSkopeo) console.warn('bucket skopeo tests skipped: skopeo is not installed (apt-get install -y skopeo)');

const tmp = tempDirs(afterAll);
const hubProcess = hubProcesses(afterAll);

/**
 * A SYNTHETIC OCI image layout: a config and `layers` uncompressed layers of the given sizes (made-up bytes, not real
 * tars of anything), one manifest, `index.json` naming it with tag `latest`. Returns the layout folder and every
 * blob digest.
 */
async function ociLayout(layers: number[]): Promise<{ dir: string; digests: string[] }> {
  const dir = await tmp('hub-oci-layout-');
  const blobs = path.join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const put = async (bytes: Uint8Array) => {
    const hex = sha256(bytes);
    await writeFile(path.join(blobs, hex), bytes);
    return { digest: `sha256:${hex}`, size: bytes.byteLength };
  };
  const layerDescs = [];
  for (const [i, size] of layers.entries()) {
    const bytes = new Uint8Array(size).map((_, j) => (j * (i + 3) + i) & 0xff);
    layerDescs.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...(await put(bytes)) });
  }
  const config = await put(
    new TextEncoder().encode(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: {},
        rootfs: { type: 'layers', diff_ids: layerDescs.map((l) => l.digest) },
      }),
    ),
  );
  const manifest = await put(
    new TextEncoder().encode(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: layerDescs,
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
  return { dir, digests: [config.digest, manifest.digest, ...layerDescs.map((l) => l.digest)] };
}

async function skopeo(args: string[]) {
  return run('skopeo', ['--insecure-policy', ...args], { timeout: 180_000, maxBuffer: 1 << 24 }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
  );
}

/** Every blob file of an OCI layout, with the SHA-256 of its bytes. */
async function layoutBlobs(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const blobs = path.join(dir, 'blobs', 'sha256');
  for (const name of await readdir(blobs)) out.set(`sha256:${name}`, `sha256:${sha256(await readFile(path.join(blobs, name)))}`);
  return out;
}

let hub: TestHub;
let host = '';
beforeAll(async () => {
  hub = await startTestHub({ config: { registryTokens: [TOKEN] } });
  host = new URL(hub.url).host;
});
afterAll(async () => {
  await hub?.close();
});

describe('the buckets section on node-server', () => {
  it("the demo day's archive entry keeps the buckets catalog of that day", async () => {
    const d = await (await fetch(`${hub.url}/buckets?format=json`)).json();
    const archive = await (await fetch(`${hub.url}/api/hub/archive`)).json();
    expect(archive.days[0].buckets).toBe(d.catalog.address);
  });
});

describe.skipIf(!hasSkopeo)('buckets through skopeo (needs skopeo)', () => {
  it('pushes a layout with several blobs (one over 16 MiB), pulls it back, and every blob hashes to its digest', async () => {
    const src = await ociLayout([1000, 17 * 1024 * 1024 + 5, 250_000]);
    // --preserve-digests: a bucket keeps the bytes as they are (skopeo would otherwise gzip uncompressed layers)
    const push = await skopeo([
      'copy',
      '--preserve-digests',
      '--dest-tls-verify=false',
      '--dest-creds',
      `anyone:${TOKEN}`,
      `oci:${src.dir}:latest`,
      `docker://${host}/hub/buckets/skopeo-test:v1`,
    ]);
    expect(push.stderr).toBe('');
    expect(push.code).toBe(0);
    const tags = await (await fetch(`${hub.url}/v2/hub/buckets/skopeo-test/tags/list`)).json();
    expect(tags).toEqual({ name: 'hub/buckets/skopeo-test', tags: ['v1'] });

    const out = await tmp('hub-oci-pulled-');
    const pull = await skopeo([
      'copy',
      '--preserve-digests',
      '--src-tls-verify=false',
      `docker://${host}/hub/buckets/skopeo-test:v1`,
      `oci:${out}:v1`,
    ]);
    expect(pull.code).toBe(0);
    const pulled = await layoutBlobs(out);
    for (const [name, actual] of pulled) expect(actual, name).toBe(name);
    // every blob pushed came back, the same bytes
    for (const d of src.digests)
      expect(pulled.has(d), `${d} of ${JSON.stringify(src.digests)} in ${JSON.stringify([...pulled.keys()])}`).toBe(true);
  }, 180_000);

  it('a push without the token is refused (401) and stores nothing', async () => {
    const src = await ociLayout([2000]);
    const push = await skopeo(['copy', '--dest-tls-verify=false', `oci:${src.dir}:latest`, `docker://${host}/hub/buckets/no-token:v1`]);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/401|unauthorized|authentication required/i);
    const res = await fetch(`${hub.url}/v2/hub/buckets/no-token/tags/list`);
    expect(res.status).toBe(404);
    for (const d of src.digests)
      expect((await fetch(`${hub.url}/v2/hub/buckets/no-token/blobs/${d}`, { method: 'HEAD' })).status).toBe(404);
  }, 60_000);

  it('a blob whose bytes do not match its digest is DIGEST_INVALID and nothing is stored', async () => {
    const bytes = new TextEncoder().encode('SYNTHETIC bytes that are not what the digest says');
    const claimed = `sha256:${sha256(new TextEncoder().encode('something else'))}`;
    const res = await fetch(`${hub.url}/v2/hub/buckets/digest-test/blobs/uploads/?digest=${claimed}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].code).toBe('DIGEST_INVALID');
    expect((await fetch(`${hub.url}/v2/hub/buckets/digest-test/blobs/${claimed}`)).status).toBe(404);
    expect((await fetch(`${hub.url}/v2/hub/buckets/digest-test/tags/list`)).status).toBe(404);
  });
});

/** A free port on loopback, and the next one (the demo mirror's). */
describe.skipIf(!hasSkopeo || !existsSync(CLI))('kill -9 during a bucket push (needs skopeo and the built CLI)', () => {
  it('leaves a store that hub index verify passes', async () => {
    const data = await tmp('hub-kill-data-');
    const config = path.join(data, 'hub.json');
    await writeFile(config, JSON.stringify({ registryTokens: [TOKEN], demoMirrorPort: 0 }));
    const server = await hubProcess({
      args: ['--host', '127.0.0.1', '--data', data, '--config', config],
      port: await freePort(65000),
      quiet: true,
    });
    const { port, url: base } = server;
    // a small blob first, then a large one: the kill lands while the large one is in flight
    const src = await ociLayout([500, 60 * 1024 * 1024]);
    const push = skopeo([
      'copy',
      '--dest-tls-verify=false',
      '--dest-creds',
      `anyone:${TOKEN}`,
      `oci:${src.dir}:latest`,
      `docker://127.0.0.1:${port}/hub/buckets/killed:v1`,
    ]);
    for (let i = 0; i < 600; i++) {
      const catalog = await fetch(`${base}/v2/_catalog`)
        .then((r) => r.json())
        .catch(() => ({ repositories: [] }));
      if ((catalog.repositories as string[]).includes('hub/buckets/killed')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await server.stop('SIGKILL');
    const pushed = await push;
    expect(pushed.code).not.toBe(0);
    const verify = await run(process.execPath, [CLI, 'index', 'verify', '--data', data]).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, out: e.stdout ?? '' }),
    );
    expect(verify.out).toMatch(/0 faults/);
    expect(verify.code).toBe(0);
  }, 180_000);
});

describe.skipIf(!existsSync(CLI))('hub buckets put and get (needs the built CLI)', () => {
  it('pushes a layout (one blob over 16 MiB in chunks) that reads back blob by blob, and a second push sends nothing again', async () => {
    const src = await ociLayout([3000, 16 * 1024 * 1024 + 100]);
    const put = () =>
      run(process.execPath, [CLI, 'buckets', 'put', src.dir, '--name', 'cli-test:v2', '--token', TOKEN, '--url', hub.url], {
        maxBuffer: 1 << 24,
      });
    const first = await put();
    const events = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === 'blob').map((e) => e.outcome)).toEqual(['sent', 'sent', 'sent']);
    expect(events.at(-1)).toMatchObject({ event: 'tagged', bucket: 'cli-test', tag: 'v2', digest: src.digests[1] });
    for (const d of src.digests) {
      const res = await fetch(`${hub.url}/v2/hub/buckets/cli-test/${d === src.digests[1] ? 'manifests' : 'blobs'}/${d}`);
      expect(res.status, d).toBe(200);
      expect(`sha256:${sha256(new Uint8Array(await res.arrayBuffer()))}`).toBe(d);
    }
    const again = (await put()).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(again.filter((e) => e.event === 'blob').map((e) => e.outcome)).toEqual(['held', 'held', 'held']);
  }, 120_000);

  it('hub buckets get pulls it back into a layout, blob for blob, and a second pull fetches nothing', async () => {
    const src = await ociLayout([2000, 17 * 1024 * 1024]);
    await run(process.execPath, [CLI, 'buckets', 'put', src.dir, '--name', 'cli-get:v1', '--token', TOKEN, '--url', hub.url], {
      maxBuffer: 1 << 24,
    });
    const out = await tmp('hub-bucket-get-');
    const get = async () =>
      (await run(process.execPath, [CLI, 'buckets', 'get', 'cli-get:v1', out, '--url', hub.url], { maxBuffer: 1 << 24 })).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const first = await get();
    expect(first.filter((e) => e.event === 'blob').map((e) => e.outcome)).toEqual(['fetched', 'fetched', 'fetched']);
    expect(first.at(-1)).toMatchObject({ event: 'pulled', bucket: 'cli-get', tag: 'v1', digest: src.digests[1] });
    // the same blobs, byte for byte, as the layout pushed
    const names = (dir: string) => readdir(path.join(dir, 'blobs', 'sha256')).then((n) => n.sort());
    expect(await names(out)).toEqual(await names(src.dir));
    for (const n of await names(out)) {
      expect(sha256(await readFile(path.join(out, 'blobs', 'sha256', n))), n).toBe(n);
    }
    const index = JSON.parse(await readFile(path.join(out, 'index.json'), 'utf8'));
    expect(index.manifests).toEqual([
      expect.objectContaining({ digest: src.digests[1], annotations: { 'org.opencontainers.image.ref.name': 'v1' } }),
    ]);
    const again = await get();
    expect(again.filter((e) => e.event === 'blob').map((e) => e.outcome)).toEqual(['held', 'held', 'held']);
  }, 120_000);

  it('hub buckets get keeps nothing of a blob whose bytes do not match its digest, and exits 1', async () => {
    // A registry that lies about one layer (SYNTHETIC bytes): the manifest is right, the layer is not.
    const layer = new TextEncoder().encode('SYNTHETIC layer as pushed\n');
    const lie = new TextEncoder().encode('SYNTHETIC other bytes\n');
    const layerDigest = `sha256:${sha256(layer)}`;
    const manifest = new TextEncoder().encode(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: `sha256:${sha256(new TextEncoder().encode('{}'))}`, size: 2 },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.byteLength }],
      }),
    );
    const manifestDigest = `sha256:${sha256(manifest)}`;
    const server = http.createServer((req, res) => {
      const url = req.url ?? '';
      if (url.includes('/manifests/')) {
        res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'docker-content-digest': manifestDigest });
        res.end(req.method === 'HEAD' ? undefined : manifest);
      } else if (url.endsWith('/blobs/sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a')) {
        res.end('{}');
      } else if (url.endsWith(`/blobs/${layerDigest}`)) {
        res.end(lie);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const out = await tmp('hub-bucket-lie-');
    try {
      const r = await run(process.execPath, [CLI, 'buckets', 'get', 'lied:v1', out, '--url', url]).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${layerDigest}: the bytes received hash to sha256:${sha256(lie)}`);
      const kept = await readdir(path.join(out, 'blobs', 'sha256'));
      expect(kept).not.toContain(layerDigest.slice('sha256:'.length));
      expect(kept.filter((n) => n.includes('partial'))).toEqual([]);
      expect(existsSync(path.join(out, 'index.json'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it('without the token: exit 1 naming UNAUTHORIZED', async () => {
    const src = await ociLayout([10]);
    const r = await run(process.execPath, [CLI, 'buckets', 'put', src.dir, '--name', 'denied', '--token', 'wrong', '--url', hub.url]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNAUTHORIZED/);
  });
});
