import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceProber } from '@hub/core-index';
import { DEMO_SOURCE, type DemoMirror, demoSource, demoTreeDir, startDemoMirror } from '@hub/node-toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  demoStore,
  type Env,
  type KVNamespaceLike,
  loadMiniflare,
  type MiniflareLike,
  type R2BucketLike,
  uploadStore,
  worker,
} from '../apps/edge/test/harness.js';
import { PROBES_FILE, startTestHub } from '../apps/node-server/test/helpers.js';

/**
 * One prober (issue 13): both hosts only trigger rounds of core-index's `SourceProber` — node-server on its timer,
 * the edge on its cron trigger — and hand it their storage (a file, a KV key). Each trigger is watched going through
 * `SourceProber.prototype.round` and leaving its state where that host keeps it.
 */

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROBE_PATH = 'demo/tiny-bert-synthetic/config.json';
let mirror: DemoMirror;
let sha256: string;
let mf: MiniflareLike | undefined;

beforeAll(async () => {
  mirror = await startDemoMirror({ root: demoTreeDir() });
  sha256 = createHash('sha256')
    .update(await readFile(path.join(demoTreeDir(), PROBE_PATH)))
    .digest('hex');
});

afterAll(async () => {
  await mf?.dispose();
  await mirror?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const probedSource = (name: string = DEMO_SOURCE) =>
  demoSource(mirror.template, { name, probe: { path: 'demo/tiny-bert-synthetic/resolve/main/config.json', sha256 } });

describe('one prober, triggered by both hosts', () => {
  it('node-server: its timer runs SourceProber rounds, and the state lands in probes.json', async () => {
    const round = vi.spyOn(SourceProber.prototype, 'round');
    // The bundled demo index with its own mirror, plus one more source (the same bytes) with a probe file.
    const hub = await startTestHub({ config: { sources: [probedSource('probed')], probeIntervalSeconds: 60 } });
    try {
      await vi.waitFor(() => expect(round).toHaveBeenCalled(), { timeout: 5000 });
      const saved = await vi.waitFor(
        async () => {
          const state = JSON.parse(await readFile(path.join(hub.dataDir, PROBES_FILE), 'utf8'));
          expect(state.sources.probed).toMatchObject({ ok: true, reason: 'verified' });
          return state;
        },
        { timeout: 5000 },
      );
      // The health the hub answers with is the prober's own state, not a copy kept in step.
      expect(hub.running.deps.health).toBe(hub.running.prober);
      const health = await (await fetch(`${hub.url}/api/hub/health`)).json();
      expect(health.sources.probed).toEqual({ ok: true, checked: saved.sources.probed.checked, reason: 'verified' });
      expect(health.sources[DEMO_SOURCE]).toEqual({ ok: true, checked: null }); // no probe file: offered, never checked
    } finally {
      await hub.close();
    }
  });

  it('the edge: its cron trigger runs one SourceProber round, and the state lands in KV', async () => {
    const { Miniflare } = await loadMiniflare();
    mf = new Miniflare({
      modules: true,
      script: 'export default { fetch() { return new Response("") } }',
      compatibilityDate: '2026-04-20',
      r2Buckets: ['OBJECTS'],
      d1Databases: ['ACCOUNTS'],
      kvNamespaces: ['STATE'],
    });
    const bucket = (await mf.getR2Bucket('OBJECTS')) as unknown as R2BucketLike;
    const kv = (await mf.getKVNamespace('STATE')) as unknown as KVNamespaceLike;
    await uploadStore(await demoStore(), bucket);
    const env = {
      OBJECTS: bucket,
      STATE: kv,
      ACCOUNTS: await mf.getD1Database('ACCOUNTS'),
      SOURCES: JSON.stringify([probedSource()]),
      ORDER: JSON.stringify([DEMO_SOURCE]),
      LOG_LEVEL: 'error',
    } as unknown as Env;
    const round = vi.spyOn(SourceProber.prototype, 'round');
    await worker.scheduled({}, env, { waitUntil: () => {} });
    expect(round).toHaveBeenCalledTimes(1);
    const state = JSON.parse((await kv.get('probes')) ?? '{}');
    expect(state.sources[DEMO_SOURCE]).toMatchObject({ ok: true, reason: 'verified', failures: 0 });
  });

  it('no host probes on its own: no app source calls the probe itself or keeps a health map of its own', () => {
    const offenders: string[] = [];
    for (const app of ['node-server', 'edge']) {
      const dir = path.join(root, 'apps', app, 'src');
      for (const f of readdirSync(dir, { recursive: true }) as string[]) {
        if (!f.endsWith('.ts') || f.endsWith('.test.ts')) continue;
        const text = readFileSync(path.join(dir, f), 'utf8');
        if (
          /\bprobeSource\(|\brecordOutcome\(|\bnextProbeDue\(|\bpullForward\(|extends MemorySourceHealth|setTimeout\([^)]*round/.test(text)
        )
          offenders.push(`apps/${app}/src/${f}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
