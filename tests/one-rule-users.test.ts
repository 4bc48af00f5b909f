import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTokenVerifier, MemoryAccountStore, TokenBucketLimiter } from '@hub/account';
import { createTestIdentityProvider } from '@hub/account/testing';
import {
  BoundedQueue,
  type BuildModelInput,
  DEFAULT_IPFS_GATEWAY,
  DEFAULT_SOURCES,
  emptyPins,
  formatBytes,
  ggufFactsOf,
  MemoryMissingLog,
  recordMissing,
  SOURCE_KIND_INFO,
  shellQuote,
  silentLogger,
} from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { createComposedTestHub } from '@hub/hub/testing';
import { DEMO_SOURCE, demoSource, demoTreeDir } from '@hub/node-toolkit';
import { type BuildSummary, UpstreamClient } from '@hub/upstream';
import { describe, expect, it } from 'vitest';
import { ProgressBars } from '../apps/node-server/src/progress.js';
import { sourcesFromConfig } from '../apps/node-server/src/sources-config.js';
import { summaryText } from '../apps/node-server/src/upstream-build.js';
import { ggufFacts as localGgufFacts } from '../packages/node-toolkit/src/from-dir.js';
import { SourceLookups } from '../packages/upstream/src/lookups.js';
import { type IndexModelContext, remoteGgufFacts } from '../packages/upstream/src/model.js';

/**
 * One definition per rule, guarded by behaviour (issue 25): each guard calls every user of a rule and compares what
 * it does with the rule itself, so a second copy fails here by what it answers, however it is spelled.
 */

const REV = 'e'.repeat(40);
const sha = (n: number) => n.toString(16).padStart(64, '0');
// SYNTHETIC model: made-up id, names, sizes and digests; sizes chosen where binary and decimal units differ
const SIZES = [1536, 5 * 1024 * 1024 + 1, 3 * 1024 ** 3];
const MODEL: BuildModelInput = {
  id: 'synthetic-org/rule-guard',
  revision: REV,
  license: null,
  files: [
    { path: "it's weights Q4_K_M.gguf", size: SIZES[0] as number, sha256: sha(1) },
    { path: 'config.json', size: SIZES[1] as number, sha256: sha(2) },
    { path: 'model.safetensors', size: SIZES[2] as number, sha256: sha(3) },
  ],
  sources: [{ source: 'mirror-a', type: 'http' }],
};

const mcp = (name: string, args: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
});

describe('byte sizes: every user writes formatBytes', () => {
  it('binary units, labelled as such', () => {
    expect([0, 1023, 1024, 1536, 5 * 1024 * 1024, 42.5 * 1024 ** 3, 300 * 1024 ** 4].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.00 KiB',
      '1.50 KiB',
      '5.00 MiB',
      '42.5 GiB',
      '300 TiB',
    ]);
  });

  it('the site model page, MCP model details, the upstream run summary and the download progress line', async () => {
    const t = await createComposedTestHub({ models: [MODEL] });
    const page = (await request(t.hub, `/models/${MODEL.id}`, { headers: { accept: 'text/html' } })).text;
    const details = (await request(t.hub, '/mcp', mcp('model_details', { model_id: MODEL.id }))).text;
    for (const n of SIZES) expect(page, `site: ${n}`).toContain(formatBytes(n));
    expect(details).toContain(`3 files, ${formatBytes(SIZES.reduce((a, b) => a + b, 0))}`);
    const summary = summaryText({
      catalog: 'blake3:x',
      date: '2026-01-01',
      models: 1,
      files: 3,
      bytes: SIZES[2],
      skipped: [],
      skippedByReason: {},
      reused: 0,
      kept: 0,
      keptByReason: {},
      resumed: 0,
      sources: {},
      requests: 1,
      requestsByBucket: { api: 1 },
      retries: 0,
      rateLimited: 0,
      waitedMs: 0,
      downloadedBytes: SIZES[0],
      seconds: 1,
    } as unknown as BuildSummary);
    expect(summary).toContain(formatBytes(SIZES[2] as number));
    expect(summary).toContain(`${formatBytes(SIZES[0] as number)} of small files hashed`);
    const out: string[] = [];
    const bars = new ProgressBars(
      (s) => void out.push(s),
      () => 0,
    );
    bars.update({ file: 'f', source: 's', received: SIZES[0] as number, size: SIZES[1] as number });
    expect(bars.line('f')).toContain(`${formatBytes(SIZES[0] as number)}/${formatBytes(SIZES[1] as number)}`);
  });
});

describe('shell quoting: every user writes shellQuote', () => {
  it('the site model page and MCP get_download quote a path with a space and a quote the same way', async () => {
    const t = await createComposedTestHub({ models: [MODEL] });
    const path0 = MODEL.files[0]?.path as string;
    const quoted = shellQuote(path0);
    expect(quoted).toBe(`'it'\\''s weights Q4_K_M.gguf'`);
    const page = (await request(t.hub, `/models/${MODEL.id}`, { headers: { accept: 'text/html' } })).text;
    expect(page).toContain(quoted.replace(/'/g, '&#39;'));
    const download = (await request(t.hub, '/mcp', mcp('get_download', { model: MODEL.id, path: path0 }))).text;
    expect(download).toContain(JSON.stringify(`-o ${quoted}`).slice(1, -1));
  });
});

describe('recording a missing model id: every dialect records what recordMissing records', () => {
  const IDS = ['Synthetic-Owner/not-indexed-yet', 'api/looks-like-a-route', 'synthetic-owner/x'];
  const expected = () => {
    const log = new MemoryMissingLog();
    for (const id of IDS) recordMissing({ missing: log, defer: () => {}, log: silentLogger }, id);
    return log.list();
  };

  it('the model-host resolve 404, the OCI manifest 404, MCP model_details and the account request', async () => {
    const want = await expected();
    expect(want).toEqual(['Synthetic-Owner/not-indexed-yet', 'synthetic-owner/x']);
    const idp = await createTestIdentityProvider({ issuer: 'https://id.example.test', audience: 'hub-site' });
    const verifier = await createTokenVerifier({ publicKey: idp.publicKeyPem, issuer: 'https://id.example.test', audience: 'hub-site' });
    const token = await idp.sign({ sub: 'did:plc:synthetic-rule' }, { now: 1_700_000_000_000 });
    const users: Record<string, (hub: Awaited<ReturnType<typeof createComposedTestHub>>['hub'], id: string) => Promise<unknown>> = {
      'hf resolve': (hub, id) => request(hub, `/${id}/resolve/main/config.json`),
      'oci manifest': (hub, id) => request(hub, `/v2/${id.toLowerCase()}/manifests/latest`),
      'mcp model_details': (hub, id) => request(hub, '/mcp', mcp('model_details', { model_id: id })),
      'account request': (hub, id) =>
        request(hub, '/api/account/request', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: id }),
        }),
    };
    for (const [name, call] of Object.entries(users)) {
      const missing = new MemoryMissingLog();
      const accounts = { store: new MemoryAccountStore(), limiter: new TokenBucketLimiter({ burst: 100, perSecond: 1 }), verifier };
      const t = await createComposedTestHub({ models: [MODEL] }, { missing, accounts, now: () => 1_700_000_000_000 });
      for (const id of IDS) await call(t.hub, id);
      const got = (await missing.list()).map((id) => id.toLowerCase());
      // the OCI path is lower case by the registry's grammar
      expect(got, name).toEqual(want.map((id) => id.toLowerCase()));
    }
  });
});

describe('the bounded queue: every user holds the bound and starts in arrival order', () => {
  /** How a gate ran six tasks: the most at once, and the order they started in. */
  async function observe(start: (i: number, task: () => Promise<void>) => Promise<unknown>): Promise<{ peak: number; order: number[] }> {
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const runs = Array.from({ length: 6 }, (_, i) =>
      start(i, async () => {
        order.push(i);
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5 + (i % 3)));
        active--;
      }),
    );
    await Promise.all(runs);
    return { peak, order };
  }

  it('BoundedQueue, the upstream client (requests) and the run secondary-source lookups agree', async () => {
    const q = new BoundedQueue(2);
    const rule = await observe((_i, task) => q.run(task));
    expect(rule).toEqual({ peak: 2, order: [0, 1, 2, 3, 4, 5] });

    const tasks = new Map<string, () => Promise<void>>();
    const client = new UpstreamClient({
      concurrency: 2,
      retries: 0,
      fetch: (async (url: string) => {
        await tasks.get(url)?.();
        return new Response('{}', { headers: { 'content-type': 'application/json' } });
      }) as typeof fetch,
    });
    const viaClient = await observe((i, task) => {
      tasks.set(`https://up.test/api/models/o/m${i}`, task);
      return client.json(`https://up.test/api/models/o/m${i}`);
    });
    expect(viaClient).toEqual(rule);

    const finds = new Map<string, () => Promise<void>>();
    const lookups = new SourceLookups(
      {
        source: 'synthetic.test',
        find: async ({ id }: { id: string }) => {
          await finds.get(id)?.();
          return undefined;
        },
      } as never,
      { call: async (fn: () => Promise<unknown>) => ({ skipped: false, value: await fn() }) } as never,
      {} as never,
      2,
    );
    const viaLookups = await observe(async (i, task) => {
      finds.set(`o/m${i}`, task);
      await new Promise<void>((done) => lookups.add({ ...MODEL, id: `o/m${i}` }, async () => done()));
    });
    expect(viaLookups).toEqual(rule);
  });
});

describe('the IPFS gateway default: one value wherever a gateway is not configured', () => {
  it('the default ipfs source, the kind table, empty pins, the pins route and an ipfs redirect', async () => {
    expect(DEFAULT_SOURCES.find((s) => s.name === 'ipfs')?.url).toBe(DEFAULT_IPFS_GATEWAY);
    expect(SOURCE_KIND_INFO.ipfs.defaultUrl).toBe(DEFAULT_IPFS_GATEWAY);
    expect(emptyPins().gateway).toBe(DEFAULT_IPFS_GATEWAY);
    const pinned: BuildModelInput = { ...MODEL, sources: [{ source: 'ipfs', type: 'ipfs', root: 'bafysyntheticroot' }] };
    const t = await createComposedTestHub({
      models: [pinned],
      sources: [{ name: 'ipfs', display: 'IPFS', token: 'ipfs', kind: 'ipfs' }],
    });
    const pins = (await request(t.hub, '/api/hub/pins')).json() as { gateway: string };
    expect(pins.gateway).toBe(DEFAULT_IPFS_GATEWAY);
    const r = await request(t.hub, `/${MODEL.id}/resolve/main/config.json`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe(`${DEFAULT_IPFS_GATEWAY}/ipfs/bafysyntheticroot/config.json`);
  });
});

describe('the demo source: one entry', () => {
  it('node-server configures the demo mirror as demoSource() says, first in its sources after the defaults', () => {
    const template = 'http://127.0.0.1:9/{id}/resolve/{revision}/{path}';
    const sources = sourcesFromConfig({}, { template } as never);
    // node-server's demo mirror runs beside the hub, so its redirects name the client's host (issue 26: onHubHost)
    expect(sources.find((s) => s.name === DEMO_SOURCE)).toEqual(demoSource(template, { onHubHost: true }));
  });
});

describe('GGUF facts: both index builders read the same facts from the same file', () => {
  it('from-dir (a local read) and the upstream run (range requests) agree with ggufFactsOf', async () => {
    const rel = 'llama-2-tiny-random-F16.gguf';
    const file = path.join(demoTreeDir(), 'demo', 'tiny-llama-2-GGUF', rel);
    const bytes = readFileSync(file);
    const local = await localGgufFacts(file, rel);
    const fetchFile = (async (_url: string, init?: RequestInit) => {
      const range = new Headers(init?.headers).get('range');
      const m = range ? /bytes=(\d+)-(\d*)/.exec(range) : null;
      if (!m) return new Response(bytes);
      const start = Number(m[1]);
      const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
      return new Response(bytes.subarray(start, end + 1), {
        status: 206,
        headers: { 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': String(end - start + 1) },
      });
    }) as typeof fetch;
    const ctx = {
      client: new UpstreamClient({ fetch: fetchFile, retries: 0 }),
      upstream: 'https://up.test',
      smallFileCap: 0,
      ggufHeaders: 1,
      hfSource: 'huggingface.co',
      log: silentLogger,
    } as IndexModelContext;
    const remote = await remoteGgufFacts(ctx, `https://up.test/o/n/resolve/${REV}/${rel}`, rel);
    expect(local?.architecture).toBe('llama');
    expect(remote).toEqual(local);
    const { gguf } = await import('@huggingface/gguf');
    const parsed = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
    expect(local).toEqual(ggufFactsOf(rel, parsed as never));
  });
});
