import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type Address,
  generateSignerKey,
  leafHash,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  readLogEntries,
  readLogState,
  treeHash,
} from '@hub/core-index';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { FakeUpstream, type FakeUpstreamData } from '@hub/upstream/testing';
import { http as mswHttp } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { createLogger } from '../src/logger.js';
import { nextRunAt, parseRefresh, startRefresh } from '../src/refresh.js';
import { buildFromUpstream } from '../src/upstream-build.js';
import { LOAD_PACK_FILE, VERIFIED_REF, verifyStore } from '../src/verify.js';
import { startTestHub } from './helpers.js';

const data: FakeUpstreamData = modelHostFixtures();
// SYNTHETIC flags and ModelScope repositories (see fake-upstream.ts).
const fakeOptions = (base: string, msBase: string) => ({
  base,
  msBase,
  gated: ['mistralai/Mistral-Medium-3.5-128B'],
  private: ['XiaomiMiMo/MiMo-V2.5'],
  modelscope: { 'deepseek-ai/DeepSeek-V4-Pro': { from: 'deepseek-ai/DeepSeek-V4-Pro', mode: 'same' as const } },
});

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const quiet = createLogger({ level: 'silent' });
const tmp = tempDirs(afterAll);

let fake = new FakeUpstream(data, fakeOptions('https://hf.test', 'https://ms.test'));
const msw = setupServer(
  mswHttp.all('https://hf.test/*', ({ request }) => fake.handle(request)),
  mswHttp.all('https://ms.test/*', ({ request }) => fake.handle(request)),
);
beforeAll(() => msw.listen({ onUnhandledRequest: 'bypass' }));
afterAll(async () => {
  msw.close();
});

/** The log of a data folder: its size, the size its checkpoint signs (verified with `vkey` over the entries), the days. */
async function signedLog(dataDir: string, vkey: string) {
  const store = new FsObjectStore(dataDir);
  const state = await readLogState(store);
  const entries = await readLogEntries(store, state);
  const note = new TextDecoder().decode((await store.get(state.checkpoint as Address))?.bytes);
  const cp = parseCheckpoint((await openNote(note, [await parseVerifierKey(vkey)])).text);
  expect(cp.root).toEqual(treeHash(entries.slice(0, cp.size).map(leafHash)));
  return { size: state.size, signed: cp.size, dates: entries.map((e) => JSON.parse(new TextDecoder().decode(e)).date) };
}

async function corruptOne(dataDir: string, address: string) {
  const hex = address.slice('blake3:'.length);
  const file = path.join(dataDir, 'objects', hex.slice(0, 2), hex);
  const bytes = await readFile(file);
  bytes[bytes.length - 2] = (bytes[bytes.length - 2] as number) ^ 0x01;
  await writeFile(file, bytes);
}

describe('index build from an upstream, on disk', () => {
  it('builds, verifies, is served (archive, pins, OCI artifact), and verify fails on one corrupted object', async () => {
    fake = new FakeUpstream(data, fakeOptions('https://hf.test', 'https://ms.test'));
    const dataDir = await tmp('hub-up-');
    const pinned = fake.models.get('openai/privacy-filter')!;
    await writeFile(
      path.join(dataDir, 'pins.json'),
      JSON.stringify({
        format: 'svc.model-hub.pins/v1',
        gateway: 'https://ipfs.example',
        models: { 'openai/privacy-filter': { root: 'bafySYNTHETIC', revision: pinned.sha } },
      }),
    );
    await writeFile(path.join(dataDir, 'missing.txt'), 'google-bert/bert-base-uncased\n');
    const summary = await buildFromUpstream({
      dataDir,
      upstream: 'https://hf.test',
      modelscope: 'https://ms.test',
      top: 20,
      date: '2026-05-04',
      log: quiet,
    });
    expect(summary.models).toBe(21);
    expect(summary.skippedByReason).toMatchObject({ gated: 1, private: 1 });
    // The run wrote what the first start needs: the load pack of this catalog and the verified ref.
    expect(await new FsObjectStore(dataDir).readRef(VERIFIED_REF)).toBe(summary.catalog);
    const pack = await readFile(path.join(dataDir, LOAD_PACK_FILE), 'utf8');
    expect(JSON.parse(pack.split('\n')[1] as string)).toMatchObject({ kind: 'model-hub.load-pack', version: 2, catalog: summary.catalog });
    const report = await verifyStore(new FsObjectStore(dataDir));
    expect(report.faults).toEqual([]);

    const hub = await startTestHub({ dataDir, config: { demo: false } });
    try {
      const archive = await (await fetch(`${hub.url}/api/hub/archive`)).json();
      expect(archive).toMatchObject({ format: 'svc.model-hub.archive/v1', registry: 'hub/index', gateway: 'https://ipfs.example' });
      expect(archive.days[0]).toMatchObject({ date: '2026-05-04', index: summary.catalog, models: 21 });
      const pins = await (await fetch(`${hub.url}/api/hub/pins`)).json();
      expect(pins.models['openai/privacy-filter'].root).toBe('bafySYNTHETIC');
      expect((await (await fetch(`${hub.url}/v2/_catalog`)).json()).repositories).toContain('hub/index');
      const tags = await (await fetch(`${hub.url}/v2/hub/index/tags/list`)).json();
      expect(tags.tags).toEqual(['2026-05-04', 'latest']);
      const info = await (await fetch(`${hub.url}/api/models/deepseek-ai/DeepSeek-V4-Pro`)).json();
      expect(info.sha).toBe(fake.models.get('deepseek-ai/DeepSeek-V4-Pro')!.sha);
      expect(info.svc.sources).toEqual(['Hugging Face', 'ModelScope']);
    } finally {
      await hub.close();
    }

    expect((await readFile(path.join(dataDir, 'refs', 'current'), 'utf8')).trim()).toBe(summary.catalog);
    await corruptOne(dataDir, summary.catalog);
    const bad = await verifyStore(new FsObjectStore(dataDir));
    expect(bad.faults.some((f) => f.startsWith(`${summary.catalog}: bytes hash to`))).toBe(true);
  });

  it('hub serve --refresh: a scheduled build switches the running hub to the new index without a restart', async () => {
    fake = new FakeUpstream(data, fakeOptions('https://hf.test', 'https://ms.test'));
    const hub = await startTestHub(); // the demo index
    try {
      const before = await (await fetch(`${hub.url}/api/models?limit=500`)).json();
      expect(before.some((r: { id: string }) => r.id === 'deepseek-ai/DeepSeek-V4-Pro')).toBe(false);
      const schedule = parseRefresh('daily', '03:00');
      expect(new Date(nextRunAt(schedule, Date.parse('2026-05-04T02:00:00Z'))).toISOString()).toBe('2026-05-04T03:00:00.000Z');
      expect(new Date(nextRunAt(schedule, Date.parse('2026-05-04T03:00:00Z'))).toISOString()).toBe('2026-05-05T03:00:00.000Z');
      expect(nextRunAt(parseRefresh('6h'), 1000)).toBe(1000 + 6 * 3600_000);
      expect(() => parseRefresh('weekly')).toThrow(/daily, hourly/);
      const refresher = startRefresh({
        schedule,
        log: quiet,
        reload: () => hub.running.reload(),
        build: async () => {
          const s = await buildFromUpstream({
            dataDir: hub.dataDir,
            upstream: 'https://hf.test',
            modelscope: false,
            top: 5,
            date: '2099-01-01',
            log: quiet,
          });
          return { catalog: s.catalog, models: s.models };
        },
      });
      expect(refresher.nextAt()).toBeGreaterThan(Date.now());
      const r = await refresher.runNow();
      refresher.stop();
      expect(r?.models).toBe(5);
      const after = await (await fetch(`${hub.url}/api/models?limit=500`)).json();
      expect(after.map((x: { id: string }) => x.id)).toContain('deepseek-ai/DeepSeek-V4-Pro');
      const archive = await (await fetch(`${hub.url}/api/hub/archive`)).json();
      expect(archive.days).toHaveLength(2);
      expect(archive.days[0].prev).toBe(archive.days[1].index);
    } finally {
      await hub.close();
    }
  });
});

/** The fake upstream over real HTTP on 127.0.0.1 (for a child process). */
async function serveFake(delayMs: number): Promise<{ url: string; fake: FakeUpstream; close(): Promise<void> }> {
  let f: FakeUpstream | undefined;
  let origin = '';
  const server = http.createServer(async (req, res) => {
    const r = await (f as FakeUpstream).handle(
      new Request(`${origin}${req.url}`, { method: req.method, headers: req.headers as Record<string, string> }),
    );
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin = url;
  f = new FakeUpstream(data, { ...fakeOptions(url, `${url}/ms`), delayMs });
  return {
    url,
    fake: f,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const run = promisify(execFile);
/** The signing key of the SIGKILL test's builds (HUB_SIGNING_KEY_FILE), written in its beforeAll. */
let signingEnv: Record<string, string> = {};
async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...signingEnv },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe.skipIf(!existsSync(CLI))('hub index build --upstream in a child process (needs the built CLI: pnpm test builds first)', () => {
  it('killed with SIGKILL midway and run again, ends identical to an uninterrupted build; verify passes, then fails on a corrupted object', async () => {
    const up = await serveFake(25);
    // The builds sign the transparency log (issue 30): a day before the killed one is in the log already.
    const key = await generateSignerKey('hub.test/api/hub/log');
    const keyFile = path.join(await tmp('hub-kill-key-'), 'log.key');
    await writeFile(keyFile, key.signerKey, { mode: 0o600 });
    signingEnv = { HUB_SIGNING_KEY_FILE: keyFile };
    try {
      const args = (dataDir: string, date = '2026-05-04', top = '20') => [
        'index',
        'build',
        '--upstream',
        up.url,
        '--top',
        top,
        '--data',
        dataDir,
        '--date',
        date,
        '--modelscope',
        `${up.url}/ms`,
        '--model-concurrency',
        '2',
      ];
      const clean = await tmp('hub-kill-clean-');
      expect((await cli(args(clean, '2026-05-03', '5'))).code).toBe(0);
      const uninterrupted = await cli(args(clean));
      expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
      const expected = JSON.parse(uninterrupted.stdout.trim().split('\n').pop() as string);
      expect(expected.models).toBe(20);
      expect(uninterrupted.stderr).toMatch(/skipped: .*1 gated/);

      const dataDir = await tmp('hub-kill-');
      expect((await cli(args(dataDir, '2026-05-03', '5'))).code).toBe(0);
      expect(await signedLog(dataDir, key.verifierKey)).toEqual({ size: 1, signed: 1, dates: ['2026-05-03'] });
      const child = spawn(process.execPath, [CLI, ...args(dataDir)], {
        env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...signingEnv },
        stdio: 'ignore',
      });
      const ref = path.join(dataDir, 'refs', 'build-2026-05-04');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      for (let i = 0; i < 1000; i++) {
        const done = existsSync(ref) ? Object.keys(JSON.parse(readFileSync(ref, 'utf8')).done ?? {}).length : 0;
        if (done >= 6) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill('SIGKILL');
      expect(await exited).toBeNull();
      // The kill left the log as it was: its last checkpoint verifies and covers the day before.
      expect(await signedLog(dataDir, key.verifierKey)).toEqual({ size: 1, signed: 1, dates: ['2026-05-03'] });
      const finishedBefore = Object.keys(JSON.parse(readFileSync(ref, 'utf8')).done).length;
      expect(finishedBefore).toBeGreaterThanOrEqual(6);
      expect(finishedBefore).toBeLessThan(20);

      const rerun = await cli(args(dataDir));
      expect(rerun.code, rerun.stderr).toBe(0);
      const result = JSON.parse(rerun.stdout.trim().split('\n').pop() as string);
      expect(result.resumed).toBeGreaterThanOrEqual(finishedBefore);
      expect(result.catalog).toBe(expected.catalog);
      expect(result.models).toBe(expected.models);
      // The rerun appended exactly one leaf, and signed it.
      expect(await signedLog(dataDir, key.verifierKey)).toEqual({ size: 2, signed: 2, dates: ['2026-05-03', '2026-05-04'] });

      const ok = await cli(['index', 'verify', '--data', dataDir]);
      expect(ok.stdout).toMatch(/ 0 faults/);
      expect(ok.code).toBe(0);
      await corruptOne(dataDir, result.catalog);
      const bad = await cli(['index', 'verify', '--data', dataDir]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain(`FAULT ${result.catalog}: bytes hash to`);
    } finally {
      signingEnv = {};
      await up.close();
    }
  }, 180_000);

  it('objects put publishes a file (chunked over 16 MiB) and refuses a wrong token', async () => {
    const hub = await startTestHub({ config: { publisherTokens: ['cli-token'] } });
    try {
      const dir = await tmp('hub-put-');
      const small = path.join(dir, 'note.json');
      await writeFile(small, '{"a":1}');
      const put = await cli(['objects', 'put', small, '--kind', 'note', '--token', 'cli-token', '--url', hub.url]);
      expect(put.code, put.stderr).toBe(0);
      const out = JSON.parse(put.stdout);
      expect(out.created).toBe(true);
      const got = await fetch(`${hub.url}/api/v1/objects/${out.address}`);
      expect(got.headers.get('content-type')).toBe('application/json');
      expect(await got.text()).toBe('{"a":1}');
      const big = path.join(dir, 'big.bin');
      await writeFile(big, Buffer.alloc(20 * 1024 * 1024, 7));
      const chunked = JSON.parse(
        (await cli(['objects', 'put', big, '--kind', 'weights', '--token', 'cli-token', '--url', hub.url])).stdout,
      );
      expect(chunked.chunks).toHaveLength(2);
      const denied = await cli(['objects', 'put', small, '--kind', 'note', '--token', 'wrong', '--url', hub.url]);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain('401');
    } finally {
      await hub.close();
    }
  }, 60_000);
});
