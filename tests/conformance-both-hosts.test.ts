import { createTestIdentityProvider } from '@hub/account/testing';
import { PagedIndex } from '@hub/core-index';
import { hubRoutes } from '@hub/hub';
import {
  type BadInputAnswer,
  type BadInputRequest,
  type ConformanceOptions,
  type ConformanceReport,
  checkBadInput,
  compareReports,
  runConformance,
  withRetries,
} from '@hub/hub/testing';
import { DEMO_SOURCE, demoSource, demoTreeDir, type StaticMirror, startStaticMirror } from '@hub/node-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from '../apps/edge/test/harness.js';
import { startTestHub, type TestHub } from '../apps/node-server/test/helpers.js';

/**
 * The conformance suite against the edge under workerd (Miniflare), seeded with the bundled demo
 * index and pointed at a static mirror of the demo bytes, and against node-server on the same
 * index and configuration: every case must pass on both, and both hosts must answer identically.
 * workerd starts once for the file. It lives at the top (tests/) because it compares the two apps, and
 * apps never import each other.
 */
const REGISTRY_TOKEN = 'conformance-registry-token';
const PUBLISHER_TOKEN = 'conformance-publisher-token';

let edge: RunningEdge;
let node: TestHub;
let mirror: StaticMirror;
let edgeReport: ConformanceReport;
let nodeReport: ConformanceReport;
let edgeOptions: ConformanceOptions;
/** The same hosts serving the day from its index pages (design 11.1): every answer must be the whole store's answer. */
let pagedEdge: RunningEdge;
let pagedNode: TestHub;
let pagedEdgeReport: ConformanceReport;
let pagedNodeReport: ConformanceReport;

beforeAll(async () => {
  const idp = await createTestIdentityProvider();
  mirror = await startStaticMirror({ root: demoTreeDir() });
  const source = demoSource(mirror.template);
  edge = await startEdge({
    bindings: {
      SOURCES: [source],
      ORDER: [DEMO_SOURCE, 'huggingface.co', 'modelscope.cn', 'ipfs'],
      REGISTRY_TOKENS: REGISTRY_TOKEN,
      PUBLISHER_TOKENS: JSON.stringify([PUBLISHER_TOKEN]),
      ACCOUNT_PUBLIC_KEY: idp.publicKeyPem,
      ACCOUNT_SITE_ORIGIN: 'https://site.example',
      LOG_LEVEL: 'warn',
    },
  });
  node = await startTestHub({
    config: {
      account: { publicKey: idp.publicKeyPem, siteOrigin: 'https://site.example' },
      registryTokens: [REGISTRY_TOKEN],
      publisherTokens: [PUBLISHER_TOKEN],
    },
  });
  edgeOptions = {
    role: 'edge',
    accountsConfigured: true,
    mirrorUrl: mirror.url,
    registryToken: REGISTRY_TOKEN,
    publisherToken: PUBLISHER_TOKEN,
  };
  edgeReport = await runConformance(edge.url, edgeOptions);
  nodeReport = await runConformance(node.url, {
    role: 'server',
    accountsConfigured: true,
    mirrorUrl: node.mirrorUrl,
    registryToken: REGISTRY_TOKEN,
    publisherToken: PUBLISHER_TOKEN,
  });
  // The other store on both hosts: the demo day's index pages instead of the whole index.
  pagedEdge = await startEdge({
    bindings: {
      SOURCES: [source],
      ORDER: [DEMO_SOURCE, 'huggingface.co', 'modelscope.cn', 'ipfs'],
      REGISTRY_TOKENS: REGISTRY_TOKEN,
      PUBLISHER_TOKENS: JSON.stringify([PUBLISHER_TOKEN]),
      ACCOUNT_PUBLIC_KEY: idp.publicKeyPem,
      ACCOUNT_SITE_ORIGIN: 'https://site.example',
      LOG_LEVEL: 'warn',
      INDEX_STORE: 'paged',
    },
  });
  pagedNode = await startTestHub({
    config: {
      account: { publicKey: idp.publicKeyPem, siteOrigin: 'https://site.example' },
      registryTokens: [REGISTRY_TOKEN],
      publisherTokens: [PUBLISHER_TOKEN],
      indexStore: 'paged',
    },
  });
  pagedEdgeReport = await runConformance(pagedEdge.url, edgeOptions);
  pagedNodeReport = await runConformance(pagedNode.url, {
    role: 'server',
    accountsConfigured: true,
    mirrorUrl: pagedNode.mirrorUrl,
    registryToken: REGISTRY_TOKEN,
    publisherToken: PUBLISHER_TOKEN,
  });
}, 300_000);

afterAll(async () => {
  await edge?.close();
  await node?.close();
  await pagedEdge?.close();
  await pagedNode?.close();
  await mirror?.close();
});

describe('conformance: the edge under workerd', () => {
  it('passes every case', () => {
    expect(edgeReport.failures).toEqual([]);
    expect(edgeReport.results.length).toBe(nodeReport.results.length);
  });

  it('answers every case exactly as node-server does', () => {
    expect(compareReports(nodeReport, edgeReport)).toEqual([]);
  });

  it('fails when one host changes a header (a deliberate difference)', async () => {
    // Wrap the edge's fetch so /api/models answers with another Cache-Control: the suite must notice.
    const tampered: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).includes('/api/models?limit=1')) return res;
      const headers = new Headers(res.headers);
      headers.set('cache-control', 'public, max-age=61');
      return new Response(res.body, { status: res.status, headers });
    };
    const report = await runConformance(edge.url, { ...edgeOptions, fetch: tampered, filter: (c) => c.area === 'hf' });
    const diff = compareReports({ ...nodeReport, results: nodeReport.results.filter((r) => r.area === 'hf') }, report);
    expect(diff).toEqual([
      'GET /api/models?limit=1 pages with Link rel=next: header cache-control: "public, max-age=60" vs "public, max-age=61"',
    ]);
  });

  it('fails when one host changes a body or a status', () => {
    const results = edgeReport.results.map((r) =>
      r.name === 'GET /v2/ is the API check'
        ? { ...r, observed: { ...r.observed, body: '{"x":1}' } }
        : r.name === 'GET /mcp is 405'
          ? { ...r, observed: { ...r.observed, status: 404 } }
          : r,
    );
    const diff = compareReports(nodeReport, { ...edgeReport, results });
    expect(diff).toHaveLength(2);
    expect(diff[0]).toMatch(/^GET \/v2\/ is the API check: body differs/);
    expect(diff[1]).toBe('GET /mcp is 405: status 405 vs 404');
  });
});

describe('conformance: both stores (the whole index and its pages) on both hosts', () => {
  it('passes every case from the pages, on node-server and at the edge', () => {
    expect(pagedNode.running.deps.index()).toBeInstanceOf(PagedIndex);
    expect(node.running.deps.index()).not.toBeInstanceOf(PagedIndex);
    expect(pagedNodeReport.failures).toEqual([]);
    expect(pagedEdgeReport.failures).toEqual([]);
  });

  it('answers every case from the pages exactly as from the whole index, on each host', () => {
    expect(compareReports(nodeReport, pagedNodeReport)).toEqual([]);
    expect(compareReports(edgeReport, pagedEdgeReport)).toEqual([]);
  });
});

describe('bad input over HTTP on both hosts (the property of packages/hub/src/testing/bad-input.ts, a smaller sample)', () => {
  const SEED = Number(process.env.FC_SEED ?? 19_2026);
  const RUNS = Number(process.env.FC_HTTP_RUNS ?? 120);
  const routes = hubRoutes();

  const sender =
    (base: string) =>
    async (req: BadInputRequest): Promise<BadInputAnswer> => {
      // a connection the host reset after answering a previous request's body early is tried again (withRetries)
      const res = await withRetries(() =>
        fetch(`${base}${req.path}`, {
          method: req.method,
          headers: req.headers,
          redirect: 'manual',
          ...(req.body !== undefined ? { body: req.body } : {}),
        }),
      );
      return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
    };
  const catalogOf = async (base: string) =>
    ((await (await fetch(`${base}/`, { headers: { accept: 'application/json' } })).json()) as { catalog: unknown }).catalog;

  for (const host of ['node-server', 'edge'] as const) {
    it(`${host}: never 5xx (bar the documented 503), each group's error shape, the index unchanged, over ${RUNS} requests`, async () => {
      const base = host === 'edge' ? edge.url : node.url;
      const before = JSON.stringify(await catalogOf(base));
      await checkBadInput(routes, sender(base), { seed: SEED, runs: RUNS, http: true, boundMs: 10_000 });
      expect(JSON.stringify(await catalogOf(base))).toBe(before);
    }, 180_000);
  }
});
