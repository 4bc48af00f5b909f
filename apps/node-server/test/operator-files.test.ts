import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The operator files in ops/ (issue 28): the alert rules pass `promtool check rules` and their unit tests, and the
 * Grafana dashboard and the rules name only metrics a real node-server exports (read from its /metrics).
 */

const OPS = fileURLToPath(new URL('../../../ops/', import.meta.url));
const PROMTOOL = '/usr/bin/promtool';
const RULES = `${OPS}prometheus/hub-alerts.yml`;
const RULE_TESTS = `${OPS}prometheus/hub-alerts.test.yml`;
const DASHBOARD = `${OPS}grafana/hub-dashboard.json`;

/** Metric names of an exposition, histogram and summary series included. */
function exported(text: string): Set<string> {
  const names = new Set<string>(['up']);
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = m;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** The metric names a PromQL expression reads (identifiers of our families, `up`). */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\b(hub_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+|up)\b(?!\s*\()/g)].map((m) => m[1] as string);
}

let hub: TestHub;
let names: Set<string>;
beforeAll(async () => {
  hub = await startTestHub({ config: { metricsPort: 0 } });
  names = exported(await (await fetch(hub.running.metrics?.url ?? '')).text());
});
afterAll(async () => {
  await hub?.close();
});

describe('the Grafana dashboard', () => {
  it('parses, and every query names only metrics the hub exports', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { title: string; panels: Array<Record<string, unknown>> };
    expect(dashboard.title).toBe('Model hub');
    const exprs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === 'expr' && typeof x === 'string') exprs.push(x);
          else walk(x);
        }
    };
    walk(dashboard.panels);
    expect(exprs.length).toBeGreaterThan(15);
    const used = new Set(exprs.flatMap(namesIn));
    const unknown = [...used].filter((n) => !names.has(n));
    expect(unknown).toEqual([]);
    // What the issue asks the dashboard to show.
    for (const family of [
      'hub_requests_total',
      'hub_request_duration_seconds_bucket',
      'hub_redirects_total',
      'hub_source_up',
      'hub_index_snapshot_timestamp_seconds',
      'hub_upstream_models_total',
      'hub_upstream_requests_total',
    ])
      expect(used).toContain(family);
    // A panel per query that Grafana can place: ids unique, every panel has a position.
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) expect(p.gridPos).toBeDefined();
  });
});

describe('the alert rules', () => {
  it('name only metrics the hub exports', () => {
    const exprs = [...readFileSync(RULES, 'utf8').matchAll(/expr: (?:>-\n((?:\s{10}.*\n)+)|(.*))/g)].map((m) => m[1] ?? m[2] ?? '');
    expect(exprs).toHaveLength(6);
    const unknown = exprs.flatMap(namesIn).filter((n) => !names.has(n));
    expect(unknown).toEqual([]);
  });

  it.skipIf(!existsSync(PROMTOOL))(
    'pass promtool check rules and every promtool unit test (needs promtool: the prometheus package)',
    () => {
      const check = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8', timeout: 60_000 });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toContain('SUCCESS: 6 rules found');
      const test = spawnSync(PROMTOOL, ['test', 'rules', RULE_TESTS], { encoding: 'utf8', timeout: 60_000 });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toContain('SUCCESS');
      // Each alert has a case where it fires.
      const tests = readFileSync(RULE_TESTS, 'utf8');
      for (const alert of ['HubDown', 'HubSourceDown', 'HubNoLiveSource', 'HubIndexStale', 'HubErrors5xx', 'HubSlowProbes'])
        expect(tests).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
    },
  );
});
