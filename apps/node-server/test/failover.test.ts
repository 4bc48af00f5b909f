import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildIndex, HubHealthSchema } from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { HubConfigFile } from '../src/config.js';
import { PROBES_FILE, probeOnce, probeSettingsFrom } from '../src/prober.js';
import { sourcesFromConfig } from '../src/sources-config.js';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * Failover between two loopback sources `a` and `b` that hold the same bytes (order [a, b]): each is a
 * small node:http server the test can stop, restart on the same port, stall, or make serve wrong bytes.
 * The hub runs its real prober on a short schedule.
 */

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const enc = (s: string) => new TextEncoder().encode(s);

// ---- SYNTHETIC fixture: made-up bytes written for these tests; none of it is real model data -------
const WEIGHTS = new Uint8Array(4096).map((_, i) => (i * 31 + 7) & 0xff);
const CONFIG = enc(JSON.stringify({ _comment: 'SYNTHETIC failover test model', model_type: 'none' }));
const ONLY_A = enc('SYNTHETIC bytes that only source a holds\n');
const PROBE = enc('SYNTHETIC probe file: the hub fetches and hashes this on every probe\n');
const MODEL = 'synthetic/failover';
const MODEL_A = 'synthetic/only-a';
const PROBE_PATH = 'synthetic/probe/resolve/main/probe.bin';

type Mode = 'ok' | 'wrong' | 'stall';

/** A byte source on 127.0.0.1 answering `GET /{owner}/{name}/resolve/{rev}/{path}` from memory. */
class LoopbackSource {
  mode: Mode = 'ok';
  port = 0;
  probes = 0;
  readonly stalled = new Set<http.ServerResponse>();
  private server?: http.Server;
  private readonly files = new Map<string, Uint8Array>();

  constructor(files: Record<string, Uint8Array>) {
    for (const [k, v] of Object.entries(files)) this.files.set(k, v);
  }

  get template() {
    return `http://127.0.0.1:${this.port}/{id}/resolve/{revision}/{path}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const m = /^\/([^/]+)\/([^/]+)\/resolve\/[^/]+\/(.+)$/.exec((req.url ?? '').split('?')[0] ?? '');
      const key = m ? `${m[1]}/${m[2]}/${decodeURIComponent(m[3] ?? '')}` : '';
      if (key === 'synthetic/probe/probe.bin') this.probes++;
      const bytes = this.files.get(key);
      if (!bytes) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found\n');
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
      if (this.mode === 'stall') {
        // Headers and a few bytes, then nothing: the probe must time out.
        res.write(bytes.subarray(0, 4));
        this.stalled.add(res);
        res.on('close', () => this.stalled.delete(res));
        return;
      }
      if (this.mode === 'wrong') {
        const wrong = bytes.slice();
        wrong[wrong.length - 1] = (wrong[wrong.length - 1] ?? 0) ^ 0xff;
        return res.end(wrong);
      }
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
    for (const res of this.stalled) res.destroy();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

interface Setup {
  hub: TestHub;
  a: LoopbackSource;
  b: LoopbackSource;
  dataDir: string;
  config: HubConfigFile;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});
const dataDirs: string[] = [];
afterAll(async () => {
  for (const d of dataDirs) await rm(d, { recursive: true, force: true });
});

/** Short schedule for tests: healthy sources every 0.25 s, failing ones 0.25 s doubling up to 1 s. */
const FAST = { probeIntervalSeconds: 0.25, probeTimeoutSeconds: 0.5, probeRetrySeconds: 0.25, probeRetryMaxSeconds: 1 };

function sourceFiles(withOnlyA: boolean): Record<string, Uint8Array> {
  return {
    [`${MODEL}/weights.bin`]: WEIGHTS,
    [`${MODEL}/config.json`]: CONFIG,
    'synthetic/probe/probe.bin': PROBE,
    ...(withOnlyA ? { [`${MODEL_A}/model.bin`]: ONLY_A } : {}),
  };
}

/** Build an index where `a` and `b` hold `synthetic/failover` and only `a` holds `synthetic/only-a`. */
async function buildTwoSourceIndex(dataDir: string): Promise<void> {
  const file = (p: string, bytes: Uint8Array) => ({ path: p, size: bytes.length, sha256: sha256(bytes) });
  await buildIndex(new FsObjectStore(dataDir), {
    date: '2026-11-22',
    models: [
      {
        id: MODEL,
        license: 'mit',
        files: [file('config.json', CONFIG), file('weights.bin', WEIGHTS)],
        sources: [
          { source: 'a', type: 'http' },
          { source: 'b', type: 'http' },
        ],
      },
      { id: MODEL_A, license: 'mit', files: [file('model.bin', ONLY_A)], sources: [{ source: 'a', type: 'http' }] },
    ],
    display: (s) => (s === 'a' ? 'Mirror A' : s === 'b' ? 'Mirror B' : s),
  });
}

function configFor(a: LoopbackSource, b: LoopbackSource, timing: Partial<HubConfigFile>): HubConfigFile {
  const probe = { path: PROBE_PATH, sha256: sha256(PROBE) };
  return {
    demo: false,
    sources: [
      { name: 'a', display: 'Mirror A', token: 'ta', kind: 'http', url: a.template, probe },
      { name: 'b', display: 'Mirror B', token: 'tb', kind: 'http', url: b.template, probe },
    ],
    order: ['a', 'b'],
    ...timing,
  };
}

async function setup(timing: Partial<HubConfigFile> = FAST, options: { startA?: boolean } = {}): Promise<Setup> {
  const a = new LoopbackSource(sourceFiles(true));
  const b = new LoopbackSource(sourceFiles(false));
  await a.start();
  await b.start();
  if (options.startA === false) await a.stop();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-failover-'));
  dataDirs.push(dataDir);
  await buildTwoSourceIndex(dataDir);
  const config = configFor(a, b, timing);
  const hub = await startTestHub({ dataDir, config });
  const s: Setup = { hub, a, b, dataDir, config };
  cleanups.push(async () => {
    await s.hub.close();
    await a.stop();
    await b.stop();
  });
  return s;
}

async function resolve(hub: TestHub, urlPath: string) {
  const res = await fetch(`${hub.url}${urlPath}`, { redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, source: res.headers.get('x-hub-source'), location: res.headers.get('location'), headers: res.headers, body };
}

async function health(hub: TestHub) {
  const res = await fetch(`${hub.url}/api/hub/health`);
  expect(res.status).toBe(200);
  return HubHealthSchema.parse(await res.json());
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 8000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const WEIGHTS_PATH = `/${MODEL}/resolve/main/weights.bin`;

/** Both sources verified by the first round. */
async function bothVerified(hub: TestHub) {
  return waitFor('the first probe round', async () => {
    const h = await health(hub);
    return h.sources.a?.reason === 'verified' && h.sources.b?.reason === 'verified' && h;
  });
}

describe('source failover with loopback sources a and b (order [a, b])', () => {
  it('probes both sources, shows them verified, and resolves to a', async () => {
    const { hub, a } = await setup();
    const h = await bothVerified(hub);
    expect(h.order).toEqual(['a', 'b']);
    expect(h.sources.a).toMatchObject({ ok: true, reason: 'verified' });
    expect(Date.parse(h.sources.a?.checked ?? '')).toBeGreaterThan(Date.now() - 60_000);
    // Sources with no probe file (the built-in defaults here) are offered, never checked.
    expect(h.sources['huggingface.co']).toEqual({ ok: true, checked: null });
    const r = await resolve(hub, WEIGHTS_PATH);
    expect(r.status).toBe(302);
    expect(r.source).toBe('a');
    expect(r.location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${a.port}/${MODEL}/resolve/[0-9a-f]{40}/weights\\.bin$`));
    expect(r.headers.get('x-linked-etag')).toBe(`"${sha256(WEIGHTS)}"`);
    // The prober keeps probing on its interval.
    const before = a.probes;
    await waitFor('another probe of a', async () => a.probes >= before + 2);
  });

  it('stop a: within one probe interval every resolve and OCI blob goes to b, and health shows a unreachable', async () => {
    const { hub, a, b } = await setup();
    const verified = await bothVerified(hub);
    const blob = `/v2/${MODEL}/blobs/sha256:${sha256(WEIGHTS)}`;
    const before = await resolve(hub, blob);
    expect(before.status).toBe(307);
    expect(before.source).toBe('a');

    await a.stop();
    const stoppedAt = Date.now();
    await waitFor('resolves to go to b', async () => (await resolve(hub, WEIGHTS_PATH)).source === 'b');
    const elapsed = Date.now() - stoppedAt;
    // One interval (250 ms) plus the probe and the polling step; generous for a loaded machine.
    expect(elapsed).toBeLessThan(FAST.probeIntervalSeconds * 1000 + 2000);

    for (let i = 0; i < 10; i++) {
      const r = await resolve(hub, WEIGHTS_PATH);
      expect([r.status, r.source]).toEqual([302, 'b']);
      expect(r.location).toContain(`127.0.0.1:${b.port}/`);
    }
    const oci = await resolve(hub, blob);
    expect(oci.status).toBe(307);
    expect(oci.source).toBe('b');
    expect(oci.location).toContain(`127.0.0.1:${b.port}/${MODEL}/resolve/`);
    expect(oci.headers.get('docker-content-digest')).toBe(`sha256:${sha256(WEIGHTS)}`);

    const h = await health(hub);
    expect(h.sources.a).toMatchObject({ ok: false, reason: 'unreachable' });
    // `checked` stays the last time a was reached.
    expect(Date.parse(h.sources.a?.checked ?? '')).toBeGreaterThanOrEqual(Date.parse(verified.sources.a?.checked ?? ''));
    expect(h.sources.b).toMatchObject({ ok: true, reason: 'verified' });
  });

  it('a serving wrong bytes is marked mismatch and skipped', async () => {
    const { hub, a } = await setup();
    await bothVerified(hub);
    a.mode = 'wrong';
    const h = await waitFor('a mismatch', async () => {
      const x = await health(hub);
      return x.sources.a?.reason === 'mismatch' && x;
    });
    expect(h.sources.a?.ok).toBe(false);
    expect((await resolve(hub, WEIGHTS_PATH)).source).toBe('b');
  });

  it('a stalling is marked timeout and skipped', async () => {
    const { hub, a } = await setup();
    await bothVerified(hub);
    a.mode = 'stall';
    const h = await waitFor('a timeout', async () => {
      const x = await health(hub);
      return x.sources.a?.reason === 'timeout' && x;
    });
    expect(h.sources.a?.ok).toBe(false);
    expect((await resolve(hub, WEIGHTS_PATH)).source).toBe('b');
  });

  it('restart a: it comes back by itself on the re-check schedule, not before', async () => {
    const { hub, a } = await setup();
    await bothVerified(hub);
    await a.stop();
    // Let a fail a few times, so its re-check delay has grown (0.25, 0.5, 1 s, capped at 1 s).
    await waitFor('three failed probes of a', async () => (hub.running.prober.probeState().sources.a?.failures ?? 0) >= 3);
    const record = hub.running.prober.probeState().sources.a;
    expect(record?.ok).toBe(false);
    const gap = Date.parse(record?.next ?? '') - Date.parse(record?.probed ?? '');
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(1000 + 600); // capped at probeRetryMaxSeconds (plus the probe's own time)

    await a.start(); // same port
    const restarted = Date.now();
    const scheduled = Date.parse(hub.running.prober.probeState().sources.a?.next ?? '');
    await waitFor('a back in the choice', async () => (await resolve(hub, WEIGHTS_PATH)).source === 'a', 5000);
    const back = Date.now();
    // Not before its scheduled re-check (when that was still ahead), and within the cap after the restart.
    if (scheduled > restarted) expect(back).toBeGreaterThanOrEqual(scheduled - 50);
    expect(back - restarted).toBeLessThan(FAST.probeRetryMaxSeconds * 1000 + 2000);
    const h = await health(hub);
    expect(h.sources.a).toMatchObject({ ok: true, reason: 'verified' });
    expect(hub.running.prober.probeState().sources.a?.failures).toBe(0);
  });

  it('no live source: 503 with Retry-After and an error naming the sources and /api/hub/health', async () => {
    const { hub, a, b } = await setup();
    await bothVerified(hub);
    await a.stop();
    await b.stop();
    await waitFor('both down', async () => {
      const h = await health(hub);
      return h.sources.a?.ok === false && h.sources.b?.ok === false;
    });
    const r = await resolve(hub, WEIGHTS_PATH);
    expect(r.status).toBe(503);
    expect(r.headers.get('x-error-code')).toBe('SourceUnavailable');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    // Seconds until the next re-check: at least 1, at most the configured cap (1 s) rounded up.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    const body = JSON.parse(r.body) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toBe(
      `No live source holds "weights.bin" of ${MODEL} right now (sources holding it: a, b); retry after the next probe, or see /api/hub/health.`,
    );
    const oci = await resolve(hub, `/v2/${MODEL}/blobs/sha256:${sha256(WEIGHTS)}`);
    expect(oci.status).toBe(503);
    expect(Number(oci.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(oci.body).errors[0].code).toBe('UNAVAILABLE');
  });

  it('/via/: a known token holding the file goes first; a known token not holding it and an unknown token use the order', async () => {
    const { hub, b } = await setup();
    await bothVerified(hub);
    const holding = await resolve(hub, `/via/tb${WEIGHTS_PATH}`);
    expect([holding.status, holding.source]).toEqual([302, 'b']); // X-Hub-Source in health-key spelling, not the token
    expect(holding.location).toContain(`127.0.0.1:${b.port}/`);
    // The health key works as a token too.
    expect((await resolve(hub, `/via/b${WEIGHTS_PATH}`)).source).toBe('b');
    // b does not hold synthetic/only-a: default order.
    const notHolding = await resolve(hub, `/via/tb/${MODEL_A}/resolve/main/model.bin`);
    expect([notHolding.status, notHolding.source]).toEqual([302, 'a']);
    // Unknown token: not refused, default order.
    const unknown = await resolve(hub, `/via/nosuchsource${WEIGHTS_PATH}`);
    expect([unknown.status, unknown.source]).toEqual([302, 'a']);
    // The /raw/ form follows the same choice.
    expect((await resolve(hub, `/via/tb/${MODEL}/raw/main/weights.bin`)).source).toBe('b');
    // A named source that is down is skipped like any other.
    await b.stop();
    await waitFor('b down', async () => (await health(hub)).sources.b?.ok === false);
    expect((await resolve(hub, `/via/tb${WEIGHTS_PATH}`)).source).toBe('a');
  });

  it('probes never delay requests: resolves during a round of stalled sources answer as fast as without', async () => {
    // A long probe timeout, so one round of stalled probes lasts 6 s.
    const { hub, a, b } = await setup({ ...FAST, probeTimeoutSeconds: 6 });
    await bothVerified(hub);
    const timeOne = async (p: string) => {
      const t = performance.now();
      const r = await resolve(hub, p);
      expect(r.status).toBe(302);
      return performance.now() - t;
    };
    const paths = [WEIGHTS_PATH, `/${MODEL}/resolve/main/config.json`, `/via/tb${WEIGHTS_PATH}`];
    const baseline: number[] = [];
    for (let i = 0; i < 30; i++) baseline.push(await timeOne(paths[i % 3] as string));

    a.mode = 'stall';
    b.mode = 'stall';
    await waitFor('a round stalled on both sources', async () => a.stalled.size > 0 && b.stalled.size > 0);
    const roundStarted = Date.now();
    const during: number[] = [];
    for (let i = 0; i < 30; i++) during.push(await timeOne(paths[i % 3] as string));
    const healthStart = performance.now();
    await health(hub);
    during.push(performance.now() - healthStart);

    // The round was still in flight for the whole measurement: nothing waited for it.
    expect(a.stalled.size + b.stalled.size).toBeGreaterThan(0);
    expect(Date.now() - roundStarted).toBeLessThan(6000);
    expect((await health(hub)).sources.a?.reason).toBe('verified');
    const worst = (xs: number[]) => Math.max(...xs);
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    // Generous bounds relative to the baseline measured here; a blocked request would take ~6 s.
    expect(worst(during)).toBeLessThan(Math.max(10 * worst(baseline), 500));
    expect(sum(during)).toBeLessThan(Math.max(5 * sum(baseline), 2000));
  });

  it('a stalled source does not hold back the probes of the others', async () => {
    const { hub, a, b } = await setup({ ...FAST, probeTimeoutSeconds: 6 });
    await bothVerified(hub);
    a.mode = 'stall';
    await waitFor('a probe of a stalled', async () => a.stalled.size > 0);
    const stalledAt = Date.now();
    await b.stop();
    await waitFor('b down while a is still stalled', async () => (await health(hub)).sources.b?.reason === 'unreachable');
    expect(Date.now() - stalledAt).toBeLessThan(4000);
    expect(a.stalled.size).toBeGreaterThan(0);
    // a has not timed out yet, so it is still offered; b is not.
    expect((await resolve(hub, `/via/tb${WEIGHTS_PATH}`)).source).toBe('a');
  });

  it('health and the re-check schedule survive a restart on the same data folder', async () => {
    // A long schedule: nothing is due again during the test, so what shows after the restart was restored.
    const slow = { probeIntervalSeconds: 60, probeTimeoutSeconds: 2, probeRetrySeconds: 60, probeRetryMaxSeconds: 600 };
    const s = await setup(slow, { startA: false });
    const first = await waitFor('the first round', async () => {
      const h = await health(s.hub);
      return h.sources.a?.reason === 'unreachable' && h.sources.b?.reason === 'verified' && h;
    });
    expect((await resolve(s.hub, WEIGHTS_PATH)).source).toBe('b');
    const file = path.join(s.dataDir, PROBES_FILE);
    await waitFor('the persisted file', async () => {
      try {
        const saved = JSON.parse(await readFile(file, 'utf8'));
        return saved.sources?.a && saved.sources?.b;
      } catch {
        return false;
      }
    });
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.v).toBe(1);
    expect(saved.sources.a).toMatchObject({ ok: false, reason: 'unreachable', failures: 1, checked: null });
    expect(saved.sources.b).toMatchObject({ ok: true, reason: 'verified', failures: 0 });

    await s.hub.close();
    const probesOfB = s.b.probes;
    await s.a.start(); // a is back, but its re-check is a minute away: the restored state must still say down.
    s.hub = await startTestHub({ dataDir: s.dataDir, config: configFor(s.a, s.b, slow) });
    const after = await health(s.hub);
    expect(after.sources.a).toEqual(first.sources.a);
    expect(after.sources.b).toEqual(first.sources.b);
    expect((await resolve(s.hub, WEIGHTS_PATH)).source).toBe('b');
    await new Promise((r) => setTimeout(r, 300));
    expect(s.b.probes).toBe(probesOfB); // not re-probed: the schedule was restored too
    expect(s.a.probes).toBe(0);
  });
});

describe('the prober on its timer (injected fetch)', () => {
  it('never has more than probeConcurrency probes in flight, never probes one source twice at once, and aborts them on stop', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-prober-'));
    dataDirs.push(dataDir);
    let inFlight = 0;
    let most = 0;
    const perUrl = new Map<string, number>();
    let twice = false;
    const hang = ((input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      inFlight++;
      most = Math.max(most, inFlight);
      perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
      if ((perUrl.get(url) ?? 0) > 1) twice = true;
      return new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener('abort', () => {
          inFlight--;
          perUrl.set(url, (perUrl.get(url) ?? 1) - 1);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    }) as typeof fetch;
    const probe = { path: 'p.bin', sha256: sha256(PROBE) };
    const sources = Array.from({ length: 6 }, (_, i) => ({
      name: `s${i}`,
      display: `S${i}`,
      token: `s${i}`,
      kind: 'http' as const,
      url: `http://s${i}.test/{path}`,
      probe,
    }));
    const { SourceProber, silentLogger } = await import('@hub/core-index');
    const { fileProbeStorage } = await import('../src/prober.js');
    const prober = new SourceProber({
      sources,
      order: sources.map((s) => s.name),
      storage: fileProbeStorage(dataDir),
      settings: probeSettingsFrom({
        probeConcurrency: 2,
        probeTimeoutSeconds: 0.3,
        probeIntervalSeconds: 0.05,
        probeRetrySeconds: 0.05,
        probeRetryMaxSeconds: 0.05,
      }),
      log: silentLogger,
      fetch: hang,
    });
    await prober.load();
    prober.start();
    await waitFor(
      'every source probed at least once',
      async () => sources.every((s) => prober.probeState().sources[s.name]?.reason === 'timeout'),
      5000,
    );
    expect(most).toBe(2);
    expect(twice).toBe(false);
    await prober.stop();
    expect(inFlight).toBe(0);
    const saved = JSON.parse(await readFile(path.join(dataDir, PROBES_FILE), 'utf8'));
    expect(Object.keys(saved.sources).sort()).toEqual(sources.map((s) => s.name));
  });
});

describe('hub probe (one round, as a table)', () => {
  it('prints every source with its reason and saves the results in the data folder', async () => {
    const a = new LoopbackSource(sourceFiles(true));
    const b = new LoopbackSource(sourceFiles(false));
    await a.start();
    await b.start();
    b.mode = 'wrong';
    cleanups.push(async () => {
      await a.stop();
      await b.stop();
    });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-probe-'));
    dataDirs.push(dataDir);
    const config = configFor(a, b, FAST);
    const sources = sourcesFromConfig(config);
    const { table, ok, round } = await probeOnce({ sources, order: config.order ?? [], settings: probeSettingsFrom(config), dataDir });
    expect(ok).toBe(false);
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SOURCE\s+OK\s+REASON\s+HTTP\s+MS\s+DETAIL$/);
    expect(lines[1]).toMatch(/^a\s+yes\s+verified\s+200\s+\d+\s+http:\/\/127\.0\.0\.1:\d+\/synthetic\/probe\/resolve\/main\/probe\.bin$/);
    expect(lines[2]).toMatch(/^b\s+no\s+mismatch\s+200\s+\d+\s+sha256 [0-9a-f]{64}, expected [0-9a-f]{64}$/);
    expect(lines.slice(3).map((l) => l.split(/\s+/)[0])).toEqual(['huggingface.co', 'modelscope.cn', 'ipfs']);
    expect(lines[3]).toContain('no probe file');
    expect(round.results.map((r) => r.name)).toEqual(['a', 'b']);
    const saved = JSON.parse(await readFile(path.join(dataDir, PROBES_FILE), 'utf8'));
    expect(saved.sources.b).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('refuses a probe entry that cannot work, naming the fix', async () => {
    const config: HubConfigFile = {
      sources: [{ name: 'x', kind: 'http', url: 'http://127.0.0.1:9/{id}/{path}', probe: { path: 'p', sha256: 'nothex' } }],
    };
    await expect(probeOnce({ sources: sourcesFromConfig(config), order: [], settings: probeSettingsFrom(config) })).rejects.toThrow(
      /source x: probe.sha256 must be 64 hex/,
    );
    expect(() => probeSettingsFrom({ probeIntervalSeconds: -1 })).toThrow(/intervalSeconds must be a positive number/);
  });
});

describe('healing within one probe interval (issue 19; interval 2 s, failing sources on the growing schedule)', () => {
  // The growing schedule alone would wait 2 s, 4 s, 8 s … between re-checks of a source that keeps failing; a
  // file asked for with no live holder pulls its holders' re-check back to one interval after their last probe.
  const HEAL = { probeIntervalSeconds: 2, probeTimeoutSeconds: 1, probeRetrySeconds: 2, probeRetryMaxSeconds: 3600 };
  const ONLY_A_PATH = `/${MODEL_A}/resolve/main/model.bin`;

  async function failing(hub: TestHub, name: 'a' | 'b', failures: number) {
    await waitFor(
      `${failures} failed probes of ${name}`,
      async () => (hub.running.prober.probeState().sources[name]?.failures ?? 0) >= failures,
      20_000,
    );
    const r = hub.running.prober.probeState().sources[name];
    // the schedule has grown past the interval: without demand, the next re-check is ≥ 8 s after the last probe
    expect(Date.parse(r?.next ?? '') - Date.parse(r?.probed ?? '')).toBeGreaterThanOrEqual(4000);
  }

  /** Ask for `path` until it redirects; returns the milliseconds from `since`. */
  async function redirectedAfter(hub: TestHub, path: string, since: number) {
    await waitFor(`a redirect for ${path}`, async () => (await resolve(hub, path)).status === 302, 20_000);
    return Date.now() - since;
  }

  it('a source healed after serving wrong bytes gets redirects again within one interval of the next re-check', async () => {
    const { hub, a } = await setup(HEAL);
    await bothVerified(hub);
    a.mode = 'wrong';
    await failing(hub, 'a', 3);
    expect((await resolve(hub, ONLY_A_PATH)).status).toBe(503);
    const healed = Date.now();
    a.mode = 'ok';
    const ms = await redirectedAfter(hub, ONLY_A_PATH, healed);
    // one interval after the last probe at most, plus the probe itself and the polling (the long schedule: ≥ 8 s)
    expect(ms).toBeLessThan(HEAL.probeIntervalSeconds * 1000 + 1500);
    expect((await resolve(hub, ONLY_A_PATH)).source).toBe('a');
  }, 40_000);

  it('with every source failing and one healing, the 503s stop within one interval', async () => {
    const { hub, a, b } = await setup(HEAL);
    await bothVerified(hub);
    a.mode = 'wrong';
    b.mode = 'wrong';
    await failing(hub, 'a', 3);
    await failing(hub, 'b', 3);
    const res = await resolve(hub, WEIGHTS_PATH);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(HEAL.probeIntervalSeconds);
    const healed = Date.now();
    b.mode = 'ok';
    const ms = await redirectedAfter(hub, WEIGHTS_PATH, healed);
    expect(ms).toBeLessThan(HEAL.probeIntervalSeconds * 1000 + 1500);
    expect((await resolve(hub, WEIGHTS_PATH)).source).toBe('b');
  }, 60_000);
});
