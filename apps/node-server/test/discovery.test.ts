import { createTestIdentityProvider } from '@hub/account/testing';
import { addressOf, type Route, Router, SectionDescriptorSchema } from '@hub/core-index';
import { hubRoutes } from '@hub/hub';
import { conformanceCases, runConformance } from '@hub/hub/testing';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * Discovery over real HTTP against node-server on the bundled demo index: every section descriptor's
 * requests run as written, Accept negotiation with Vary and Link on every section route, and every
 * answer (ours and the conformance suite's) validated against the OpenAPI document.
 */

let hub: TestHub;
let openapi: any;
let catalog: string;

const REGISTRY_TOKEN = 'discovery-registry-token';

beforeAll(async () => {
  // Sign-in keys and a registry token, so the conformance suite also reaches the signed-in and write answers.
  const idp = await createTestIdentityProvider();
  hub = await startTestHub({
    config: { account: { publicKey: idp.publicKeyPem, siteOrigin: 'https://site.example' }, registryTokens: [REGISTRY_TOKEN] },
  });
  openapi = await (await fetch(`${hub.url}/openapi.json`)).json();
  catalog = (await (await fetch(`${hub.url}/.well-known/model-hub.json`)).json()).catalog;
});
afterAll(async () => {
  await hub?.close();
});

const SECTIONS = ['models', 'registry', 'spaces', 'buckets', 'docs'];
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('section descriptors over HTTP', () => {
  it('runs every Request URL of every section descriptor as written: 2xx/3xx, content addresses hash back', async () => {
    let ran = 0;
    let hashed = 0;
    for (const section of SECTIONS) {
      for (const self of [`/${section}`, `/${section}/`]) {
        const res = await fetch(`${hub.url}${self}`, { headers: { accept: 'application/json' } });
        const d = SectionDescriptorSchema.parse(await res.json());
        if (d.catalog?.address) {
          expect(d.catalog.address).toMatch(/^blake3:[0-9a-f]{64}$/);
          const bytes = new Uint8Array(
            await (await fetch(`${hub.url}${d.catalog.fetch.replace('{catalog.address}', d.catalog.address)}`)).arrayBuffer(),
          );
          expect(addressOf(bytes), `${section} catalog`).toBe(d.catalog.address);
          hashed++;
        } else {
          expect(d.catalog_note, `${section} explains its null catalog`).toBeTruthy();
        }
        const requests = [...d.list, d.item, ...(d.files ? [d.files] : []), d.fetch];
        for (const r of requests) {
          expect(r.method).toBe('GET');
          const url = r.url.replaceAll('{catalog.address}', d.catalog?.address ?? '');
          expect(url, `${section}: ${r.url}`).toMatch(/^\/[^{}]*$/);
          const answer = await fetch(`${hub.url}${url}`, { redirect: 'manual' });
          expect(answer.status, `${section}: GET ${url}`).toBeGreaterThanOrEqual(200);
          expect(answer.status, `${section}: GET ${url}`).toBeLessThan(400);
          const bytes = new Uint8Array(await answer.arrayBuffer());
          const address = /\/api\/v1\/objects\/(blake3:[0-9a-f]{64})$/.exec(url)?.[1];
          if (address) {
            expect(addressOf(bytes), url).toBe(address);
            hashed++;
          }
          if (answer.status >= 300) expect(answer.headers.get('location'), url).toBeTruthy();
          ran++;
        }
        for (const p of d.pages ?? []) {
          for (const u of [p.html, p.markdown]) expect((await fetch(`${hub.url}${u}`)).status, u).toBe(200);
        }
      }
    }
    expect(ran).toBeGreaterThanOrEqual(20);
    expect(hashed).toBeGreaterThanOrEqual(4);
  });

  it('uses real ids of the index in the models and registry examples', async () => {
    const models = await (await fetch(`${hub.url}/models`, { headers: { accept: 'application/json' } })).json();
    expect(models.item.url).toMatch(/^\/api\/models\/demo\//);
    expect(models.fetch.url).toMatch(/^\/demo\/[^/]+\/resolve\/main\//);
    expect(models.inventory.described).toBe(2);
    const registry = await (await fetch(`${hub.url}/registry`, { headers: { accept: 'application/json' } })).json();
    expect(registry.fetch.url).toMatch(/^\/v2\/demo\/tiny-llama-2-gguf\/blobs\/sha256:[0-9a-f]{64}$/);
    const blob = await fetch(`${hub.url}${registry.fetch.url}`, { redirect: 'manual' });
    expect(blob.status).toBe(307);
    expect(blob.headers.get('location')).toContain(hub.mirrorUrl);
  });
});

describe('Accept negotiation on every section route', () => {
  for (const section of SECTIONS) {
    for (const path of [`/${section}`, `/${section}/`]) {
      it(`GET ${path}`, async () => {
        const cases: [string | undefined, RegExp][] = [
          ['application/json', /^application\/json/],
          [BROWSER, /^text\/html/],
          ['*/*', /^text\/markdown/],
          ['text/markdown', /^text\/markdown/],
          [undefined, /^text\/markdown/],
        ];
        const bodies: Record<string, string> = {};
        for (const [accept, type] of cases) {
          const res = await fetch(`${hub.url}${path}`, { headers: accept ? { accept } : {} });
          expect(res.status, `${accept}`).toBe(200);
          expect(res.headers.get('content-type'), `${accept}`).toMatch(type);
          expect(res.headers.get('vary'), `${accept}`).toMatch(/Accept/);
          const link = res.headers.get('link') ?? '';
          expect(link).toMatch(/<[^>]+>; rel="alternate"; type="application\/json"/);
          expect(link).toMatch(/<[^>]+>; rel="describedby"; type="text\/markdown"/);
          expect(link).toContain('</openapi.json>; rel="service-desc"');
          bodies[String(accept)] = await res.text();
          // Each Link target answers with what it claims.
          for (const m of link.matchAll(/<([^>]+)>; rel="([^"]+)"; type="([^"]+)"/g)) {
            const target = await fetch(new URL(m[1] as string, `${hub.url}${path}`));
            expect(target.status, m[1]).toBe(200);
            const want = (m[3] as string).replace('application/openapi+json', 'application/json');
            expect(target.headers.get('content-type'), m[1]).toContain(want);
          }
        }
        if (section === 'models' && path === '/models/') {
          expect(bodies[BROWSER]).toContain('id="filters"');
          const plain = await (await fetch(`${hub.url}/models`, { headers: { accept: '*/*' } })).text();
          expect(bodies['*/*']).toBe(plain);
        }
        expect(JSON.parse(bodies['application/json'] as string).section).toBe(section);
      });
    }
  }
});

// ---- OpenAPI validation ------------------------------------------------------------------------

interface Captured {
  method: string;
  path: string;
  status: number;
  contentType: string;
  bytes: Uint8Array;
  source: string;
}

const GGUF = 'llama-2-tiny-random-F16.gguf';

/** A concrete request for a route: its parameters filled with values from the demo index. */
function concrete(route: Route<any>, f: { catalog: string; ggufSha: string }): { path: string; init: RequestInit } {
  const values: Record<string, string> = {
    owner: 'demo',
    name: 'tiny-llama-2-GGUF',
    rev: 'main',
    path: GGUF,
    token: 'test',
    reference: 'latest',
    digest: `sha256:${f.ggufSha}`,
    address: f.catalog,
    rest: 'library/x/blobs/uploads/',
    page: 'sources.md',
  };
  if (route.path === '/api/models/:owner') values.owner = 'gpt2';
  if (route.path.startsWith('/api/models/') && route.path.includes('/tree/') && route.path.endsWith('*path')) values.rev = 'main';
  if (route.path.startsWith('/api/account/saved/')) values.name = 'tiny-llama-2-GGUF';
  const path = route.path.replace(/[:*]([A-Za-z_]+)/g, (_m, n: string) => values[n] ?? n);
  const init: RequestInit = { method: route.method, redirect: 'manual' };
  if (route.path === '/mcp' && route.method === 'POST') {
    init.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    init.body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  } else if (route.path.includes('paths-info')) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify({ paths: [GGUF, 'README.md'] });
  } else if (route.method === 'PUT' || route.method === 'POST') {
    init.headers = { 'content-type': 'application/json' };
    init.body = route.path.endsWith('/saved')
      ? JSON.stringify({ saved: [] })
      : route.path.endsWith('/wallet')
        ? '{"wallet":null}'
        : '{"model":"demo/x"}';
  }
  return { path, init };
}

/** Requests beyond one per route: other Accepts, errors, and other answers of the same routes. */
function extra(f: { catalog: string }): [string, RequestInit?][] {
  return [
    ['/', { headers: { accept: 'application/json' } }],
    ['/', { headers: { accept: BROWSER } }],
    ...SECTIONS.flatMap((s) =>
      [`/${s}`, `/${s}/`].flatMap((p) =>
        ['application/json', BROWSER, '*/*'].map((a) => [p, { headers: { accept: a } }] as [string, RequestInit]),
      ),
    ),
    ['/models/nobody/nothing'],
    ['/models/demo/tiny-bert-synthetic'],
    ['/docs/sources'],
    ['/docs/api.md'],
    ['/docs/missing'],
    [`/api/v1/objects/blake3:${'0'.repeat(64)}`],
    ['/api/v1/objects/not-an-address'],
    [`/api/v1/objects/${f.catalog}/meta`],
    ['/api/models?limit=0'],
    ['/api/models?search=tiny&limit=1'],
    [`/api/models/demo/tiny-llama-2-GGUF/revision/${'f'.repeat(40)}`],
    ['/demo/tiny-bert-synthetic/resolve/main/config.json', { redirect: 'manual' }],
    ['/demo/tiny-bert-synthetic/resolve/main/SHA256SUMS'],
    ['/demo/tiny-bert-synthetic/resolve/main/nothing.bin'],
    ['/v2/demo/tiny-llama-2-gguf/manifests/latest', { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } }],
    ['/v2/demo/tiny-llama-2-gguf/manifests/Q9_Z'],
    ['/v2/demo/nothing/tags/list'],
    ['/v2/_catalog?n=1'],
    ['/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{not json' }],
    [
      '/mcp',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      },
    ],
  ];
}

function baseType(ct: string): string {
  return ct.split(';')[0]?.trim().toLowerCase() ?? '';
}

function validator(doc: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: 'https://hub.test/openapi.json', components: doc.components });
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();
  return (schema: unknown) => {
    const key = JSON.stringify(schema);
    let v = cache.get(key);
    if (!v) {
      const rewritten = JSON.parse(key.replaceAll('"#/components/', '"https://hub.test/openapi.json#/components/'));
      v = ajv.compile(rewritten);
      cache.set(key, v);
    }
    return v;
  };
}

function checkAgainstOpenApi(doc: any, route: Route<unknown>, c: Captured, compile: ReturnType<typeof validator>): string[] {
  const opPath = route.path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  const op = doc.paths?.[opPath]?.[route.method.toLowerCase()];
  const where = `${c.method} ${c.path} (${c.source}) → ${c.status}`;
  if (!op) return [`${where}: no operation for ${route.method} ${route.path}`];
  const responses = op.responses as Record<string, any>;
  const spec = responses[String(c.status)] ?? responses[`${String(c.status)[0]}XX`];
  if (!spec) return [`${where}: status not declared (declared: ${Object.keys(responses).join(', ')})`];
  if (c.method === 'HEAD' || c.status === 304 || c.status === 204 || c.bytes.byteLength === 0) return [];
  const content = spec.content as Record<string, { schema: unknown }> | undefined;
  if (!content) return c.status >= 300 && c.status < 400 ? [] : [`${where}: a body, but no content declared`];
  const type = baseType(c.contentType);
  const media = content[type] ?? content['*/*'];
  if (!media) return [`${where}: content type ${type} not declared (declared: ${Object.keys(content).join(', ')})`];
  if (!/json/.test(type)) return [];
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(c.bytes));
  } catch {
    return [`${where}: ${type} body is not JSON`];
  }
  const v = compile(media.schema);
  return v(body) ? [] : [`${where}: body does not match: ${JSON.stringify(v.errors?.slice(0, 3))}`];
}

describe('responses validated against the OpenAPI document', () => {
  it('every route of hubRoutes() has an OpenAPI operation', () => {
    const missing = hubRoutes()
      .filter((r) => !openapi.paths?.[r.path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('the check can fail: an undeclared status, a wrong content type and a body off its schema are reported', () => {
    const compile = validator(openapi);
    const route = hubRoutes().find((r) => r.path === '/api/hub/health') as Route<unknown>;
    const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    const base = { method: 'GET', path: '/api/hub/health', source: 'self-test' };
    expect(
      checkAgainstOpenApi(
        openapi,
        route,
        { ...base, status: 200, contentType: 'application/json', bytes: enc({ sources: {}, order: [] }) },
        compile,
      ),
    ).toEqual([]);
    expect(
      checkAgainstOpenApi(
        openapi,
        route,
        { ...base, status: 200, contentType: 'application/json', bytes: enc({ sources: { a: { ok: 'yes' } }, order: [] }) },
        compile,
      ),
    ).toHaveLength(1);
    expect(checkAgainstOpenApi(openapi, route, { ...base, status: 200, contentType: 'text/html', bytes: enc({}) }, compile)[0]).toMatch(
      /content type/,
    );
    expect(checkAgainstOpenApi(openapi, route, { ...base, status: 302, contentType: 'text/plain', bytes: enc('') }, compile)[0]).toMatch(
      /status not declared/,
    );
  });

  it('answers of a request for every route, and of the whole conformance suite, match their declared status, content type and schema', async () => {
    const routes = hubRoutes();
    const router = new Router(routes as Route<unknown>[]);
    const catalogObj = await (await fetch(`${hub.url}/api/v1/objects/${catalog}`)).json();
    const model = await (await fetch(`${hub.url}/api/v1/objects/${catalogObj.objects['demo/tiny-llama-2-GGUF'].model}`)).json();
    const ggufSha = model.files.find((x: { path: string }) => x.path === GGUF).sha256 as string;
    const captured: Captured[] = [];
    const record = async (source: string, url: string, init: RequestInit = {}) => {
      const res = await fetch(url, { redirect: 'manual', ...init });
      const bytes = new Uint8Array(await res.clone().arrayBuffer());
      const u = new URL(url);
      captured.push({
        method: (init.method ?? 'GET').toUpperCase(),
        path: u.pathname,
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        bytes,
        source,
      });
      return res;
    };
    for (const r of routes) {
      const { path, init } = concrete(r, { catalog, ggufSha });
      await record('route', `${hub.url}${path}`, init);
    }
    for (const [path, init] of extra({ catalog })) await record('extra', `${hub.url}${path}`, init);
    // The conformance suite, through a fetch that records every answer.
    const report = await runConformance(hub.url, {
      role: 'server',
      accountsConfigured: true,
      registryToken: REGISTRY_TOKEN,
      mirrorUrl: hub.mirrorUrl,
      fetch: ((input: string | URL | Request, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (!url.startsWith(hub.url)) return fetch(input, init);
        return record('conformance', url, init);
      }) as typeof fetch,
    });
    // Whether each case passes is conformance.test.ts's business; here every answer is checked against the document.
    expect(report.results.length).toBe(
      conformanceCases().filter((c) => !c.when || c.when({ role: 'server', accountsConfigured: true, registryToken: REGISTRY_TOKEN }))
        .length,
    );

    const compile = validator(openapi);
    const failures: string[] = [];
    const hit = new Set<Route<unknown>>();
    let validated = 0;
    for (const c of captured) {
      if (c.method === 'OPTIONS') continue;
      const m = router.match(c.method, c.path);
      if (m.kind !== 'found') continue; // answered by the hub's rules (unknown path, 405), not by a route
      hit.add(m.route);
      failures.push(...checkAgainstOpenApi(openapi, m.route, c, compile));
      validated++;
    }
    expect(failures).toEqual([]);
    const unhit = routes.filter((r) => !hit.has(r as Route<unknown>)).map((r) => `${r.method} ${r.path}`);
    expect(unhit, 'routes no request reached').toEqual([]);
    expect(validated).toBeGreaterThan(150);
  });
});
