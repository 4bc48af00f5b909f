import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex } from '@hub/core-index';
import { freePort } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { sample, startTestHub, type TestHub } from './helpers.js';
import { PROMETHEUS, startPrometheus, waitFor } from './prometheus-helper.js';

/**
 * The series the alerts read, from a hub's start (issue 37, defect 5): each counter an alert uses is exposed at 0
 * for its known label sets from the first scrape, so Prometheus sees the first event as a rise. A real Prometheus
 * loads ops/prometheus/hub-alerts.yml and scrapes a fresh hub whose only source is down: HubNoLiveSource fires on
 * the first 503s, HubErrors5xx stays quiet on them, and the dashboard shows no last upstream run for a hub that
 * never ran one.
 */

const OPS = fileURLToPath(new URL('../../../ops/', import.meta.url));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
// SYNTHETIC: made-up bytes and names.
const WEIGHTS = new TextEncoder().encode('SYNTHETIC weights for the alert tests\n');
const PROBE = { path: 'synthetic/probe/resolve/main/probe.bin', sha256: sha256(new TextEncoder().encode('SYNTHETIC probe\n')) };
const MODEL = 'synthetic/alerted';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A hub over a fresh folder whose one source `a` listens nowhere (its probes fail), metrics on their own port. */
async function hubWithDeadSource(): Promise<{ hub: TestHub; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-alerts-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'hub');
  await buildIndex(new FsObjectStore(dataDir), {
    date: '2026-11-22',
    models: [
      {
        id: MODEL,
        files: [{ path: 'weights.bin', size: WEIGHTS.length, sha256: sha256(WEIGHTS) }],
        sources: [{ source: 'a', type: 'http' }],
      },
    ],
    display: (s) => s,
  });
  const dead = `http://127.0.0.1:${await freePort()}/{id}/resolve/{revision}/{path}`;
  const hub = await startTestHub({
    dataDir,
    config: {
      demo: false,
      sources: [{ name: 'a', display: 'Mirror A', token: 'ta', kind: 'http', url: dead, probe: PROBE }],
      order: ['a'],
      probeIntervalSeconds: 0.5,
      probeTimeoutSeconds: 1,
      probeRetrySeconds: 0.5,
      probeRetryMaxSeconds: 1,
      metricsPort: 0,
    },
  });
  cleanups.push(() => hub.close());
  return { hub, dir };
}

describe('the series the alerts read', () => {
  it('exist at 0 on the first scrape of a fresh hub, for every known label set', async () => {
    const { hub } = await hubWithDeadSource();
    const text = await (await fetch(hub.running.metrics?.url ?? '')).text();
    for (const group of ['hf', 'oci']) expect(sample(text, 'hub_no_live_source_total', { group }), group).toBe(0);
    // HubErrors5xx sums the 5xx series: one per route and method, the download routes of both dialects included.
    for (const [route, method] of [
      ['/:owner/:name/resolve/:rev/*path', 'GET'],
      ['/:owner/:name/resolve/:rev/*path', 'HEAD'],
      ['/v2/:owner/:name/blobs/:digest', 'GET'],
      ['/api/hub/log/checkpoint', 'GET'],
    ] as const)
      expect(sample(text, 'hub_requests_total', { route, method, status_class: '5xx' }), `${method} ${route}`).toBe(0);
    expect(sample(text, 'hub_source_probe_duration_seconds_count', { source: 'a' })).toBeDefined();
    for (const outcome of ['ok', 'failed']) expect(sample(text, 'hub_upstream_runs_total', { outcome })).toBe(0);
    for (const outcome of ['created', 'existing', 'refused']) expect(sample(text, 'hub_objects_published_total', { outcome })).toBe(0);
  });

  it('a 5xx other than a missing source leaves the error-level log line the runbook names', async () => {
    const { hub } = await hubWithDeadSource();
    await new FsObjectStore(hub.dataDir).writeRef('log', 'SYNTHETIC: not a log state');
    const res = await fetch(`${hub.url}/api/hub/log/checkpoint`);
    expect([res.status, res.headers.get('x-error-code')]).toEqual([503, 'LogUnreadable']);
    const lines = hub.logs.map((l) => JSON.parse(l) as { level: number; msg: string; event?: string });
    expect(lines.filter((l) => l.level >= 50).map((l) => [l.msg, l.event])).toEqual([['the log ref is unreadable', 'log-unreadable']]);
    const text = await (await fetch(hub.running.metrics?.url ?? '')).text();
    expect(sample(text, 'hub_requests_total', { route: '/api/hub/log/checkpoint', status_class: '5xx' })).toBe(1);
    expect(sample(text, 'hub_no_live_source_total', { group: 'hf' })).toBe(0);
  });
});

describe.skipIf(!existsSync(PROMETHEUS))('a real Prometheus with the alert rules, from a hub start (needs prometheus)', () => {
  it('fires HubNoLiveSource on the first 503s, keeps HubErrors5xx quiet on them, shows no upstream run', { timeout: 120_000 }, async () => {
    const { hub, dir } = await hubWithDeadSource();
    const prom = await startPrometheus(dir, new URL(hub.running.metrics?.url ?? '').host, [path.join(OPS, 'prometheus', 'hub-alerts.yml')]);
    cleanups.push(() => prom.stop());
    const rules = async () => {
      const res = await fetch(prom.url('rules'));
      const groups = ((await res.json()) as { data: { groups: Array<{ rules: Array<{ name: string; state: string }> }> } }).data.groups;
      return Object.fromEntries(groups.flatMap((g) => g.rules).map((r) => [r.name, r.state]));
    };
    try {
      // The hub is scraped and its source is known down: the series stand at 0 in Prometheus before any 503.
      await waitFor('source a down', async () => (await prom.query('hub_source_up')).a === 0);
      expect(await prom.query('sum(hub_no_live_source_total)', 'x')).toEqual({ value: 0 });
      expect((await rules()).HubNoLiveSource).toBe('inactive');
      // The first 503s after the start.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${hub.url}/${MODEL}/resolve/main/weights.bin`, { redirect: 'manual' });
        expect([res.status, res.headers.get('retry-after')]).toEqual([503, expect.any(String)]);
      }
      await waitFor('HubNoLiveSource firing', async () => (await rules()).HubNoLiveSource === 'firing');
      // Every answer was a 503 with no live source: HubErrors5xx leaves them to HubNoLiveSource.
      await waitFor('the 503s scraped', async () => (await prom.query('sum(hub_requests_total{status_class="5xx"})', 'x')).value === 3);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await rules()).HubErrors5xx).toBe('inactive');
      // The dashboard's "Last upstream run" panel: no value on a hub that never ran one (not "56 years ago").
      const dashboard = JSON.parse(readFileSync(path.join(OPS, 'grafana', 'hub-dashboard.json'), 'utf8'));
      const panel = dashboard.panels.find((p: { title: string }) => p.title === 'Last upstream run');
      const exprs: string[] = panel.targets.map((t: { expr: string }) => t.expr.replace(/\$job|\$instance/g, '.*'));
      expect(exprs.length).toBeGreaterThan(0);
      for (const expr of exprs) expect(await prom.query(expr, 'x'), expr).toEqual({});
    } catch (e) {
      throw new Error(`${(e as Error).message}\nprometheus log:\n${prom.logs.join('').slice(-3000)}`);
    }
  });
});
