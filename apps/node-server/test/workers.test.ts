import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, hubProcesses } from './hub-process.js';

/**
 * Issue 41: `hub serve --workers 2` (the built CLI, node:cluster): both workers answer on the one port, `/metrics`
 * sums the requests of both, and a source is probed once per round (counted at the source). SYNTHETIC probe bytes.
 */
const tmp = tempDirs(afterAll);
const PROBE = new TextEncoder().encode('SYNTHETIC probe bytes for the workers test\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One GET on a new connection (no keep-alive), so the primary hands each to a worker in turn. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** The sum of every sample of `name` whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

let source: http.Server | undefined;
afterAll(async () => {
  await new Promise<void>((r) => (source ? source.close(() => r()) : r()));
});
const hubProcess = hubProcesses(afterAll);

describe.skipIf(!existsSync(CLI))('hub serve --workers 2 (needs the built CLI)', () => {
  it('answers from both workers on one port, sums their requests in /metrics, and probes once per round', async () => {
    let probes = 0;
    source = http.createServer((req, res) => {
      if (req.url === '/probe.bin') probes++;
      res.writeHead(200, { 'content-length': String(PROBE.byteLength) });
      res.end(PROBE);
    });
    await new Promise<void>((r) => source?.listen(0, '127.0.0.1', () => r()));
    const sourcePort = (source.address() as AddressInfo).port;
    const data = await tmp('hub-workers-');
    const [port, metricsPort] = [await freePort(), await freePort()];
    const sha = createHash('sha256').update(PROBE).digest('hex');
    await writeFile(
      path.join(data, 'hub.json'),
      JSON.stringify({
        metricsPort,
        logRequests: true,
        probeIntervalSeconds: 0.5,
        leaseSeconds: 2,
        demoMirrorPort: 0,
        sources: [
          {
            name: 'counted',
            display: 'Counted',
            token: 'counted',
            kind: 'http',
            url: `http://127.0.0.1:${sourcePort}/{id}/{path}`,
            probe: { path: 'probe.bin', sha256: sha },
          },
        ],
      }),
    );
    const hub = await hubProcess({
      args: ['--workers', '2', '--data', data, '--config', path.join(data, 'hub.json')],
      port,
      ready: 'every worker listens',
    });
    const { out, url: base } = hub;

    const N = 60;
    for (let i = 0; i < N; i++) expect((await get(`${base}/api/models?limit=1`)).status).toBe(200);
    // Every worker answered some of them (each access-log line names its worker).
    const workersSeen = new Set(
      out
        .join('')
        .split('\n')
        .filter((l) => l.includes('"route":"/api/models"'))
        .map((l) => (JSON.parse(l) as { worker?: number }).worker),
    );
    expect([...workersSeen].sort()).toEqual([1, 2]);

    const scrape = await get(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    expect(total(scrape.body, 'hub_requests_total', { route: '/api/models', status_class: '2xx' })).toBe(N);
    // The index gauges are the shared index, not a sum over workers.
    expect(scrape.body).toMatch(/^hub_index_models \d+$/m);
    const models = Number(/^hub_index_models (\d+)$/m.exec(scrape.body)?.[1]);
    expect(models).toBe((JSON.parse((await get(`${base}/api/models?limit=100`)).body) as unknown[]).length);

    // Probes once per round across the workers: about one each 0.5 s (two probers would make twice as many).
    const start = probes;
    await sleep(4000);
    const counted = probes - start;
    console.log(`workers: ${counted} probes at the source in 4 s at a 0.5 s interval from --workers 2`);
    expect(counted).toBeGreaterThanOrEqual(5);
    expect(counted).toBeLessThanOrEqual(10);
  }, 90_000);
});

describe.skipIf(!existsSync(CLI))('hub serve --workers 2 that cannot listen (needs the built CLI)', () => {
  it("stops with the workers' one line and a non-zero exit, instead of restarting them forever", async () => {
    const busy = http.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as AddressInfo).port;
    const data = await tmp('hub-workers-busy-');
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--workers', '2', '--port', String(port), '--data', data], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr?.on('data', (c: Buffer) => {
        err += String(c);
      });
      child.stdout?.resume();
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code).not.toBe(0);
      expect(err).toContain(`Cannot listen on 127.0.0.1:${port}`);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  }, 60_000);
});

describe('--workers', () => {
  it('takes 1 to 64 or auto, and anything else is a usage error', async () => {
    const { parseWorkers } = await import('../src/workers.js');
    const { UsageError } = await import('../src/cli-framework.js');
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers('2')).toBe(2);
    expect(parseWorkers('auto')).toBeGreaterThanOrEqual(1);
    for (const bad of ['0', '65', 'two', '-1', '1.5']) expect(() => parseWorkers(bad)).toThrow(UsageError);
  });
});
