import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * containerd's `ctr` (Debian 12: containerd 1.6.20, the resolver family Docker Model Runner uses) pulls
 * from the hub on 127.0.0.1 over plain HTTP; weight blobs come from the demo byte source through the
 * hub's 307. containerd runs as root with its own root, state and socket in a temp folder and a config
 * that loads no plugin needing the network.
 */
const run = promisify(execFile);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const usable =
  process.getuid?.() === 0 &&
  (await run('ctr', ['--version']).then(
    () => true,
    () => false,
  ));
if (!usable) console.warn('containerd tests skipped: they need root and containerd (apt-get install -y containerd)');

let dir = '';
let daemon: ChildProcess | undefined;
let hub: TestHub;
let address = '';

async function ctr(...args: string[]): Promise<string> {
  const { stdout } = await run('ctr', ['--address', address, '--namespace', 'hubtest', ...args], { timeout: 120_000 });
  return stdout;
}

beforeAll(async () => {
  if (!usable) return;
  hub = await startTestHub();
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-containerd-'));
  address = path.join(dir, 'c.sock');
  const config = path.join(dir, 'config.toml');
  // Only the content store and metadata are needed: CRI, snapshotters that probe the kernel, and
  // everything else is disabled.
  await writeFile(
    config,
    [
      'version = 2',
      `root = "${dir}/root"`,
      `state = "${dir}/state"`,
      'disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.opt", "io.containerd.tracing.processor.v1.otlp"]',
      '[grpc]',
      `  address = "${address}"`,
      '[ttrpc]',
      `  address = "${address}.ttrpc"`,
      '[debug]',
      `  address = "${address}.debug"`,
      '',
    ].join('\n'),
  );
  daemon = spawn('containerd', ['--config', config, '--root', `${dir}/root`, '--state', `${dir}/state`, '--address', address], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const up = await run('ctr', ['--address', address, 'version'], { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('containerd did not start');
}, 60_000);

afterAll(async () => {
  if (daemon?.pid) daemon.kill('SIGTERM');
  await hub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every blob of a fetched image, from containerd's content store, hashed; and the manifest it resolved. */
async function fetched(ref: string) {
  const list = await ctr('content', 'ls', '-q');
  const digests = list.split('\n').filter((l) => l.startsWith('sha256:'));
  const image = await ctr('images', 'ls');
  expect(image).toContain(ref);
  const bytes = new Map<string, Uint8Array>();
  for (const d of digests) {
    const { stdout } = await run('ctr', ['--address', address, '--namespace', 'hubtest', 'content', 'get', d], {
      encoding: 'buffer',
      maxBuffer: 256 * 1024 * 1024,
    });
    bytes.set(d, new Uint8Array(stdout as unknown as Buffer));
  }
  return bytes;
}

describe.runIf(usable)('containerd ctr pulls from the hub (needs containerd and ctr, run as root)', () => {
  for (const [name, tag] of [
    ['demo/tiny-llama-2-gguf', 'F16'],
    ['demo/tiny-bert-synthetic', 'latest'],
    ['demo/tiny-llama-2-gguf', 'F16-modelpack'],
    ['demo/tiny-bert-synthetic', 'latest-modelpack'],
  ] as const) {
    it(`ctr content fetch ${name}:${tag}: every blob's SHA-256 is its digest and the index's`, async () => {
      const ref = `${new URL(hub.url).host}/${name}:${tag}`;
      await ctr('content', 'fetch', '--plain-http', '--all-platforms', ref);
      const blobs = await fetched(ref);
      // The manifest containerd resolved, by the digest the image record holds.
      const line = (await ctr('images', 'ls')).split('\n').find((l) => l.startsWith(`${ref} `)) ?? '';
      const digest = /sha256:[0-9a-f]{64}/.exec(line)?.[0] ?? '';
      const manifestBytes = blobs.get(digest);
      expect(manifestBytes, `manifest ${digest}`).toBeDefined();
      const manifest = JSON.parse(Buffer.from(manifestBytes as Uint8Array).toString('utf8'));
      if (tag.endsWith('-modelpack')) expect(manifest.artifactType).toBe('application/vnd.cncf.model.manifest.v1+json');
      else expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
      expect(blobs.has(manifest.config.digest)).toBe(true);
      const index = await (await fetch(`${hub.url}/api/models/${name}/tree/main?recursive=true`)).json();
      const indexed = new Set<string>(index.filter((e: any) => e.type === 'file').map((e: any) => `sha256:${e.lfs?.oid ?? e.oid}`));
      for (const layer of manifest.layers) {
        const got = blobs.get(layer.digest);
        expect(got, layer.digest).toBeDefined();
        expect(`sha256:${sha256(got as Uint8Array)}`).toBe(layer.digest);
        expect(got?.byteLength).toBe(layer.size);
        expect(indexed.has(layer.digest), `${layer.digest} is a file of the index`).toBe(true);
      }
      for (const [d, b] of blobs) expect(`sha256:${sha256(b)}`).toBe(d);
    });
  }
});
