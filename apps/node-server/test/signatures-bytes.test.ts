import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { syntheticSigner } from '@hub/model-signing/testing';
import { tempDirs } from '@hub/node-toolkit';
import { FakeUpstream } from '@hub/upstream/testing';
import { http as mswHttp } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { getCommand } from '../src/cli-get.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';
import { buildFromUpstream } from '../src/upstream-build.js';

/**
 * A signature the index cannot check from SHA-256 (shards): `needs-bytes` in the index, then checked by `hub get` from
 * the bytes it downloaded. The bundles are SYNTHETIC (key-signed with a fresh key: no public shards bundle was found);
 * the fake host's other models are the real trending rows (fixtures/model-host).
 */

const FAKE_SOURCE = [{ name: 'huggingface.co', url: 'https://hf.test/{id}/resolve/{revision}/{path}' }];
const fake = new FakeUpstream(modelHostFixtures(), { base: 'https://hf.test' });
const msw = setupServer(mswHttp.all('https://hf.test/*', ({ request }) => fake.handle(request)));
const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const started: RunningHub[] = [];
beforeAll(() => msw.listen({ onUnhandledRequest: 'bypass' }));
afterAll(async () => {
  for (const h of started) await h.close();
  msw.close();
});

describe('a shards signature: needs-bytes in the index, checked by hub get from the bytes it downloaded', () => {
  it('verified with the configured key; bytes other than the signed ones fail after the download; no key fails', async () => {
    // SYNTHETIC: a key-signed shards bundle (no public one was found); the index run and hub get both know the key
    const signer = syntheticSigner();
    const w = new Uint8Array(2500).map((_, i) => (i * 13) & 0xff);
    const other = new Uint8Array(w).map((b, i) => (i === 2100 ? b ^ 1 : b));
    const shardsOf = (bytes: Uint8Array) =>
      signer.bundle(
        { method: 'shards', hash_type: 'sha256', shard_size: 1000, allow_symlinks: false },
        [
          [0, 1000],
          [1000, 2000],
          [2000, 2500],
        ].map(([a, b]) => ({ name: `w.bin:${a}:${b}`, algorithm: 'sha256', digest: sha(bytes.subarray(a, b)) })),
      );
    fake.place('sharded/good', { 'model.sig': shardsOf(w), 'w.bin': w });
    fake.place('sharded/bad', { 'model.sig': shardsOf(other), 'w.bin': w });
    const dir = await tmp('sign-shards-');
    const signing = { keys: [{ name: 'synthetic release key', publicKey: signer.pem }] };
    await buildFromUpstream({
      dataDir: dir,
      upstream: 'https://hf.test',
      modelscope: false,
      top: 8,
      date: '2026-11-26',
      log: quiet,
      signing,
    });
    const h = await startServer({ dataDir: dir, port: 0, host: '127.0.0.1', logger: quiet, config: { demo: false, sources: FAKE_SOURCE } });
    started.push(h);
    const sig = (await (await fetch(`${h.url}/api/models/sharded/good`)).json()).svc.signature;
    expect(sig).toMatchObject({ status: 'needs-bytes', method: 'key', identity: 'synthetic release key' });
    const config = path.join(dir, 'signing.json');
    writeFileSync(config, JSON.stringify({ signing }));
    const run = async (id: string, env: Record<string, string>) => {
      const lines: string[] = [];
      const code = await getCommand([id, '--hub', h.url, '--to', await tmp('sign-get-'), '--require-signature'], {
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
        tty: false,
        env,
      });
      return { code, lines };
    };
    const good = await run('sharded/good', { HUB_SIGNING_CONFIG: config });
    expect(good.code, good.lines.join('\n')).toBe(0);
    expect(good.lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((e) => e.from === 'bytes')).toMatchObject({
      status: 'verified',
      covered: 1,
    });
    const bad = await run('sharded/bad', { HUB_SIGNING_CONFIG: config });
    expect(bad.code).toBe(1);
    expect(bad.lines.at(-1)).toMatch(/refused by --require-signature: sharded\/bad has a model\.sig that failed verification/);
    const nokey = await run('sharded/good', {});
    expect(nokey.code).toBe(1);
    expect(nokey.lines.at(-1)).toMatch(/names a public key the operator has not configured/);
  });
});
