import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEMO_SOURCE, type DemoMirror, demoSource, demoTreeDir, startDemoMirror } from '@hub/node-toolkit';
import { downloadFile, fileExists } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from './harness.js';

/**
 * Real clients against the edge under workerd, seeded with the demo index: @huggingface/hub's
 * downloadFile and skopeo (through the hub's 302/307 to a static mirror of the demo bytes on localhost).
 */
const run = promisify(execFile);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const skopeo = await run('skopeo', ['--version']).then(
  () => true,
  () => false,
);
if (!skopeo) console.warn('skopeo is not installed (apt-get install -y skopeo): the skopeo test is skipped');

let edge: RunningEdge;
let mirror: DemoMirror;
const tmp: string[] = [];

beforeAll(async () => {
  mirror = await startDemoMirror({ root: demoTreeDir() });
  edge = await startEdge({
    bindings: {
      SOURCES: [demoSource(mirror.template)],
      ORDER: [DEMO_SOURCE],
      LOG_LEVEL: 'warn',
    },
  });
});

afterAll(async () => {
  await edge?.close();
  await mirror?.close();
  for (const d of tmp) await rm(d, { recursive: true, force: true });
});

describe('clients through the edge', () => {
  it('@huggingface/hub downloadFile returns the exact bytes, hashing to the index SHA-256', async () => {
    for (const [repo, file] of [
      ['demo/tiny-llama-2-GGUF', 'llama-2-tiny-random-F16.gguf'],
      ['demo/tiny-bert-synthetic', 'tokenizer.json'],
    ] as const) {
      const tree = (await (await fetch(`${edge.url}/api/models/${repo}/tree/main?recursive=true`)).json()) as Array<{
        path: string;
        oid: string;
      }>;
      const blob = await downloadFile({ repo, path: file, hubUrl: edge.url });
      expect(blob, file).not.toBeNull();
      const bytes = new Uint8Array(await (blob as Blob).arrayBuffer());
      expect(sha256(bytes)).toBe(tree.find((e) => e.path === file)?.oid);
      expect(sha256(bytes)).toBe(sha256(await readFile(path.join(demoTreeDir(), repo, file))));
    }
    expect(await downloadFile({ repo: 'demo/tiny-bert-synthetic', path: 'missing.txt', hubUrl: edge.url })).toBeNull();
    expect(await fileExists({ repo: 'demo/tiny-bert-synthetic', path: 'config.json', hubUrl: edge.url })).toBe(true);
  });

  it.skipIf(!skopeo)('skopeo copy fetches every layer of the GGUF through the 307, each hashing to its digest (needs skopeo)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'edge-skopeo-'));
    tmp.push(dir);
    const host = new URL(edge.url).host;
    await run('skopeo', ['copy', '--src-tls-verify=false', `docker://${host}/demo/tiny-llama-2-gguf:F16`, `dir:${dir}`], {
      timeout: 60_000,
    });
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as {
      config: { digest: string; size: number };
      layers: Array<{ digest: string; size: number; mediaType: string }>;
    };
    expect(manifest.layers.length).toBeGreaterThan(0);
    for (const d of [manifest.config, ...manifest.layers]) {
      const bytes = await readFile(path.join(dir, d.digest.slice('sha256:'.length)));
      expect(bytes.byteLength).toBe(d.size);
      expect(`sha256:${sha256(bytes)}`).toBe(d.digest);
    }
  });
});
