import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildIndex } from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';
import { PROMETHEUS, startPrometheus, waitFor } from './prometheus-helper.js';

/**
 * A real Prometheus (Debian's 2.42, `/usr/bin/prometheus`) scrapes a real node-server (issue 28). Its own config and
 * data folder in a temp directory, its web listener on 127.0.0.1, stopped by its own pid. Two loopback byte sources
 * `a` and `b` hold the same SYNTHETIC file (order [a, b]); `a` is killed and restarted on the same port, and what
 * Prometheus stored is read back through its HTTP API.
 */

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const enc = (s: string) => new TextEncoder().encode(s);

// ---- SYNTHETIC fixture: made-up bytes written for this test; none of it is real model data ----------
const WEIGHTS = new Uint8Array(2048).map((_, i) => (i * 13 + 5) & 0xff);
const PROBE = enc('SYNTHETIC probe file for the Prometheus test\n');
const MODEL = 'synthetic/scraped';
const FILES: Record<string, Uint8Array> = { [`${MODEL}/weights.bin`]: WEIGHTS, 'synthetic/probe/probe.bin': PROBE };

/** A byte source on 127.0.0.1 that can be stopped and started again on the same port. */
class LoopbackSource {
  port = 0;
  private server?: http.Server;

  get template() {
    return `http://127.0.0.1:${this.port}/{id}/resolve/{revision}/{path}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const m = /^\/([^/]+)\/([^/]+)\/resolve\/[^/]+\/(.+)$/.exec((req.url ?? '').split('?')[0] ?? '');
      const bytes = m ? FILES[`${m[1]}/${m[2]}/${decodeURIComponent(m[3] ?? '')}`] : undefined;
      if (!bytes) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
      res.end(bytes);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe.skipIf(!existsSync(PROMETHEUS))('a real Prometheus scraping node-server', () => {
  it('sees the hub up, redirects by serving source, and a killed source go to 0 and back to 1', { timeout: 120_000 }, async () => {
    const a = new LoopbackSource();
    const b = new LoopbackSource();
    await a.start();
    await b.start();
    cleanups.push(async () => {
      await a.stop();
      await b.stop();
    });

    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-prometheus-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const dataDir = path.join(dir, 'hub');
    const file = (p: string, bytes: Uint8Array) => ({ path: p, size: bytes.length, sha256: sha256(bytes) });
    await buildIndex(new FsObjectStore(dataDir), {
      date: '2026-11-22',
      models: [
        {
          id: MODEL,
          license: 'mit',
          files: [file('weights.bin', WEIGHTS)],
          sources: [
            { source: 'a', type: 'http' },
            { source: 'b', type: 'http' },
          ],
        },
      ],
      display: (s) => s,
    });
    const probe = { path: 'synthetic/probe/resolve/main/probe.bin', sha256: sha256(PROBE) };
    const hub: TestHub = await startTestHub({
      dataDir,
      config: {
        demo: false,
        sources: [
          { name: 'a', display: 'Mirror A', token: 'ta', kind: 'http', url: a.template, probe },
          { name: 'b', display: 'Mirror B', token: 'tb', kind: 'http', url: b.template, probe },
        ],
        order: ['a', 'b'],
        probeIntervalSeconds: 0.5,
        probeTimeoutSeconds: 1,
        probeRetrySeconds: 0.5,
        probeRetryMaxSeconds: 1,
        metricsPort: 0,
      },
    });
    cleanups.push(() => hub.close());
    const target = new URL(hub.running.metrics?.url ?? '').host;

    // Prometheus with its own config, data folder and loopback port.
    const prom = await startPrometheus(dir, target);
    cleanups.push(() => prom.stop());
    const query = prom.query;
    const logs = prom.logs;
    const download = async () => {
      const res = await fetch(`${hub.url}/${MODEL}/resolve/main/weights.bin`);
      expect(res.status).toBe(200);
      expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(WEIGHTS));
      return res.url;
    };

    try {
      // The hub is scraped.
      await waitFor('up == 1 for the hub', async () => (await query('up{job="hub"}', 'job')).hub === 1);
      await waitFor('both sources probed', async () => {
        const up = await query('hub_source_up');
        return up.a === 1 && up.b === 1;
      });

      // A few downloads: the hub redirects each to a, which serves the bytes.
      for (let i = 0; i < 3; i++) expect(await download()).toContain(`127.0.0.1:${a.port}/`);
      await waitFor('hub_redirects_total{source="a"} to reach 3', async () => (await query('hub_redirects_total')).a === 3);

      // Kill a: Prometheus sees it down, and downloads go to b.
      await a.stop();
      await waitFor('hub_source_up{source="a"} == 0', async () => (await query('hub_source_up')).a === 0);
      expect((await query('hub_source_up')).b).toBe(1);
      const before = (await query('hub_redirects_total')).b ?? 0;
      for (let i = 0; i < 2; i++) expect(await download()).toContain(`127.0.0.1:${b.port}/`);
      await waitFor('hub_redirects_total{source="b"} to rise by 2', async () => (await query('hub_redirects_total')).b === before + 2);
      const failures = await query('sum by (source) (hub_source_probe_failures_total{reason="unreachable"})');
      expect(failures.a).toBeGreaterThanOrEqual(1);

      // Heal a on the same port: back to 1, and downloads go to a again.
      await a.start();
      await waitFor('hub_source_up{source="a"} == 1 again', async () => (await query('hub_source_up')).a === 1);
      expect(await download()).toContain(`127.0.0.1:${a.port}/`);
      await waitFor('hub_redirects_total{source="a"} to reach 4', async () => (await query('hub_redirects_total')).a === 4);

      // What Prometheus stored over the run: a was 0 and then 1 (not only now).
      const history = await query('min_over_time(hub_source_up{source="a"}[5m])');
      expect(history.a).toBe(0);
      expect((await query('up{job="hub"}', 'job')).hub).toBe(1);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nprometheus log:\n${logs.join('').slice(-3000)}`);
    }
  });
});
