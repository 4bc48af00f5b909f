// `hub get` against a real hub over loopback (from-dir index, static mirror), and the host's cache layout
// read back by @huggingface/hub's own cache functions with a fetch that throws (no network).
import { readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDirs } from '@hub/node-toolkit/testing';
import { downloadFileToCacheDir, scanCacheDir } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCommand } from '../src/cli-get.js';
import { verifyCacheCommand } from '../src/cli-verify-cache.js';
import { startTestHub, type TestHub } from './helpers.js';

// SYNTHETIC model files
const FILES = {
  'config.json': '{"model_type":"llama"}\n',
  'tiny-Q4_K_M.gguf': new Uint8Array(70_000).map((_, i) => (i * 13) & 0xff),
  'tiny-Q8_0.gguf': new Uint8Array(90_000).map((_, i) => (i * 7) & 0xff),
};
const tmp = tempDirs(afterAll);
let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ trees: { 'acme/tiny': FILES } });
});
afterAll(async () => {
  await hub?.close();
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), tty: false, env: {} } };
}

describe('hub get', () => {
  it('picks a quantisation, verifies it and writes it to --to DIR (JSON lines off a terminal)', async () => {
    const dir = await tmp('hub-get-');
    const t = io();
    const code = await getCommand(['acme/tiny:q4_k_m', '--to', dir, '--hub', hub.url], t.io);
    expect(t.err).toEqual([]);
    expect(code).toBe(0);
    const lines = t.out.map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.event === 'file').map((l) => [l.file, l.ok])).toEqual([['tiny-Q4_K_M.gguf', true]]);
    expect(new Uint8Array(await readFile(path.join(dir, 'tiny-Q4_K_M.gguf')))).toEqual(FILES['tiny-Q4_K_M.gguf']);
  });

  it('writes the host cache layout that @huggingface/hub reads back offline', async () => {
    const cache = await tmp('hub-cache-');
    const t = io();
    expect(await getCommand(['acme/tiny', '--hf-cache', cache, '--hub', hub.url], t.io)).toBe(0);
    const scan = await scanCacheDir(cache);
    const repo = scan.repos.find((r) => r.id.name === 'acme/tiny');
    expect(repo?.filesCount).toBe(3);
    const rev = [...(repo?.revisions ?? [])][0];
    expect(rev?.refs).toEqual(['main']);
    const link = path.join(cache, 'models--acme--tiny', 'snapshots', rev?.commitOid ?? '', 'config.json');
    expect(path.isAbsolute(await readlink(link))).toBe(false);
    const noNetwork = (() => {
      throw new Error('network used');
    }) as unknown as typeof fetch;
    const p = await downloadFileToCacheDir({
      repo: 'acme/tiny',
      path: 'config.json',
      revision: rev?.commitOid ?? '',
      cacheDir: cache,
      fetch: noNetwork,
    });
    expect(await readFile(p, 'utf8')).toBe(FILES['config.json']);
  });

  it('exits 2 on a bad reference and 1 when a pattern matches nothing', async () => {
    expect(await getCommand(['not-a-ref', '--hub', hub.url], io().io)).toBe(2);
    expect(await getCommand(['acme/tiny', 'nope.bin', '--hub', hub.url], io().io)).toBe(1);
  });

  it('verify-cache finds a byte flipped in a blob, and --fix repairs it', async () => {
    const cache = await tmp('hub-cache-');
    expect(await getCommand(['acme/tiny', '--hf-cache', cache, '--hub', hub.url], io().io)).toBe(0);
    const clean = io();
    expect(await verifyCacheCommand([cache, '--hub', hub.url], clean.io)).toBe(0);
    expect(clean.out.map((l) => JSON.parse(l).event)).toEqual(['match', 'match', 'match']);
    const snap = path.join(cache, 'models--acme--tiny', 'snapshots');
    const [commit] = await (await import('node:fs/promises')).readdir(snap);
    const link = path.join(snap, commit ?? '', 'tiny-Q8_0.gguf');
    const blob = path.resolve(path.dirname(link), await readlink(link));
    const bytes = await readFile(blob);
    bytes[1234] = (bytes[1234] ?? 0) ^ 0xff;
    await writeFile(blob, bytes);
    const broken = io();
    expect(await verifyCacheCommand([cache, '--hub', hub.url], broken.io)).toBe(1);
    const mismatch = broken.out.map((l) => JSON.parse(l)).find((l) => l.event === 'mismatch');
    expect(mismatch).toMatchObject({ file: 'tiny-Q8_0.gguf', expected: path.basename(blob) });
    expect(mismatch.actual).not.toBe(mismatch.expected);
    const fixed = io();
    expect(await verifyCacheCommand([cache, '--hub', hub.url, '--fix'], fixed.io)).toBe(0);
    expect(fixed.out.map((l) => JSON.parse(l)).find((l) => l.event === 'fix')).toMatchObject({ file: 'tiny-Q8_0.gguf', ok: true });
    expect(new Uint8Array(await readFile(blob))).toEqual(FILES['tiny-Q8_0.gguf']);
    expect(await verifyCacheCommand([cache, '--hub', hub.url], io().io)).toBe(0);
  });
});
