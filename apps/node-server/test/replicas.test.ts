import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { isModelId } from '@hub/core-index';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore, leaseHolder } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import type { HubConfigFile } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { parseRefresh, startSharedRefresh } from '../src/refresh.js';
import { leaseFile, PROBE_LEASE, REFRESH_LEASE, withBuildLock } from '../src/replicas.js';
import { verifyStore } from '../src/verify.js';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * Issue 41: two hubs on one data folder (two startServer calls in this process: two object stores, two bucket stores,
 * two probers, two missing logs, sharing nothing but the folder, as two processes would). SYNTHETIC blobs and ids.
 */
const tmp = tempDirs(afterAll);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const TOKEN = 'replica-registry-token';
const PROBE = new TextEncoder().encode('SYNTHETIC probe bytes for the replicas test\n');

/** A byte source that counts the probe requests it answers. */
async function countingSource(): Promise<{ url: string; probes: () => number; close: () => Promise<void> }> {
  let probes = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/probe.bin') probes++;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(PROBE.byteLength) });
    res.end(PROBE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/{id}/{path}`,
    probes: () => probes,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function twoHubs(config: HubConfigFile): Promise<[TestHub, TestHub, string]> {
  const dataDir = await tmp('hub-replicas-');
  const a = await startTestHub({ dataDir, config });
  const b = await startTestHub({ dataDir, config });
  return [a, b, dataDir];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two hubs on one data folder', () => {
  it('probe a source once per round between them, agree on its health, and the survivor takes the rounds over', async () => {
    const source = await countingSource();
    const config: HubConfigFile = {
      sources: [
        {
          name: 'counted',
          display: 'Counted',
          token: 'counted',
          kind: 'http',
          url: source.url,
          probe: { path: 'probe.bin', sha256: sha256(PROBE) },
        },
      ],
      probeIntervalSeconds: 0.5,
      leaseSeconds: 1,
    };
    const [a, b, dataDir] = await twoHubs(config);
    try {
      const holders = [a, b].filter((h) => h.logs.some((l) => l.includes('this process runs the probe rounds')));
      expect(holders).toHaveLength(1);
      const start = source.probes();
      await sleep(3000);
      const rounds = source.probes() - start;
      console.log(`replicas: ${rounds} probes at the source in 3 s at a 0.5 s interval from two hubs on one folder`);
      // One prober: about one probe each 0.5 s (6 in 3 s; two probers would make about 12).
      expect(rounds).toBeGreaterThanOrEqual(4);
      expect(rounds).toBeLessThanOrEqual(8);
      // Both answer the same health, within the follow period (0.5 s here).
      await sleep(600);
      const health = async (h: TestHub) => (await (await fetch(`${h.url}/api/hub/health`)).json()) as { sources: Record<string, unknown> };
      const [ha, hb] = [await health(a), await health(b)];
      expect(JSON.stringify(ha.sources.counted)).toContain('"ok":true');
      expect(JSON.stringify(hb.sources.counted)).toContain('"ok":true');
      // The holder goes away (its lease released on close): the other runs the rounds from now on.
      const [holder, other] = holders[0] === a ? [a, b] : [b, a];
      await holder.close();
      await sleep(1000);
      expect(other.logs.some((l) => l.includes('this process runs the probe rounds'))).toBe(true);
      expect((await leaseHolder(leaseFile(dataDir, PROBE_LEASE)))?.pid).toBe(process.pid);
      const before = source.probes();
      await sleep(1500);
      expect(source.probes() - before).toBeGreaterThanOrEqual(2);
      await other.close();
    } finally {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
      await source.close();
    }
  }, 30_000);

  it('keep every bucket of a concurrent push storm through both, and the store verifies', async () => {
    const [a, b, dataDir] = await twoHubs({ registryTokens: [TOKEN] });
    try {
      const pushes = Array.from({ length: 40 }, async (_, i) => {
        const hub = i % 2 ? a : b;
        const bytes = new TextEncoder().encode(`SYNTHETIC blob ${i} of the replicas storm`);
        const digest = `sha256:${sha256(bytes)}`;
        const res = await fetch(`${hub.url}/v2/hub/buckets/storm-${i}/blobs/uploads/?digest=${digest}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        expect(res.status).toBe(201);
        return { i, digest };
      });
      const pushed = await Promise.all(pushes);
      for (const hub of [a, b]) {
        for (const { i, digest } of pushed) {
          expect(
            (await fetch(`${hub.url}/v2/hub/buckets/storm-${i}/blobs/${digest}`, { method: 'HEAD' })).status,
            `storm-${i} via ${hub.url}`,
          ).toBe(200);
        }
      }
      const report = await verifyStore(new FsObjectStore(dataDir));
      expect(report.faults).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('record every unknown model asked for through both in the missing log, each line whole', async () => {
    const [a, b, dataDir] = await twoHubs({});
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `synthetic-missing/model-${i}`);
      // Each id asked for through both hubs at once, so both race to record it.
      await Promise.all(ids.flatMap((id) => [a, b].map((h) => fetch(`${h.url}/api/models/${id}`).then((r) => r.arrayBuffer()))));
      await a.close();
      await b.close();
      const lines = (await readFile(path.join(dataDir, 'missing.txt'), 'utf8')).split('\n').filter(Boolean);
      for (const line of lines) expect(isModelId(line), line).toBe(true);
      expect(new Set(lines)).toEqual(new Set(ids));
    } finally {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
    }
  }, 30_000);

  it('run one index build at a time: a second builder waits for the first', async () => {
    const dataDir = await tmp('hub-replicas-build-');
    const events: string[] = [];
    // no timing guessed: the second asks once the first holds the lock, and the first lets go once the second waits
    // (or after 5 s, when a broken lock let the second in at once: the order below then fails)
    let held = () => {};
    const holding = new Promise<void>((r) => {
      held = r;
    });
    let waited = () => {};
    const waiting = new Promise<void>((r) => {
      waited = r;
    });
    await Promise.all([
      withBuildLock(dataDir, async () => {
        events.push('first starts');
        held();
        await Promise.race([waiting, sleep(5000)]);
        events.push('first ends');
      }),
      holding.then(() =>
        withBuildLock(
          dataDir,
          async () => {
            events.push('second starts');
          },
          (holder) => {
            events.push(`second waits for pid ${holder.pid}`);
            waited();
          },
        ),
      ),
    ]);
    expect(events).toEqual(['first starts', `second waits for pid ${process.pid}`, 'first ends', 'second starts']);
  });

  it("run the refresh schedule in the lease holder only; a taker of a dead holder's lease builds at once when the index is a day old", async () => {
    const dataDir = await tmp('hub-replicas-refresh-');
    const log = createLogger({ level: 'silent' });
    const builds = { a: 0, b: 0 };
    const common = {
      leaseFile: leaseFile(dataDir, REFRESH_LEASE),
      leaseMs: 400,
      schedule: parseRefresh('daily'),
      log,
      reload: async () => {},
    };
    const build = (who: 'a' | 'b') => async () => {
      builds[who] += 1;
      return { catalog: who, models: 0 };
    };
    const a = startSharedRefresh({ ...common, indexAge: async () => 0, build: build('a') });
    await sleep(200);
    const b = startSharedRefresh({
      ...common,
      indexAge: async () => 25 * 3600_000,
      build: build('b'),
    });
    await sleep(600);
    // The holder has a fresh index: no build; the other waits.
    expect([a.lease.held, b.lease.held, builds.a, builds.b]).toEqual([true, false, 0, 0]);
    // The holder is killed: it renews nothing and releases nothing.
    (a.lease as unknown as { stopped: boolean }).stopped = true;
    const killedAt = Date.now();
    while (!b.lease.held && Date.now() - killedAt < 3000) await sleep(10);
    await sleep(50);
    expect(b.lease.held).toBe(true);
    expect(builds).toEqual({ a: 0, b: 1 });
    a.stop();
    b.stop();
  });
});
