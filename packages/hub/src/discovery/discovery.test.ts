import { AgentCardSchema, addressOf, type BuildModelInput, DescriptorSchema, type Hub, SectionDescriptorSchema } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { hubRoutes } from '../routes.js';
import { composedHub } from '../testing/test-hub.js';
import { BRIEF_CANARY } from './brief.js';
import { openapiPath } from './openapi.js';
import { SECTIONS } from './sections.js';

let hub: Hub;
let catalog: string;

beforeAll(async () => {
  const t = await createTestHub();
  catalog = t.catalog;
  hub = composedHub(t.deps);
});

const JSON_ACCEPT = { accept: 'application/json' };
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('section routes', () => {
  for (const section of SECTIONS) {
    for (const path of [`/${section}`, `/${section}/`]) {
      it(`${path} negotiates by Accept with Vary and Link`, async () => {
        const j = await request(hub, path, { headers: JSON_ACCEPT });
        expect(j.status).toBe(200);
        expect(j.headers['content-type']).toMatch(/^application\/json/);
        expect(j.headers.vary).toBe('Accept');
        expect(j.headers.link).toContain(`</${section}?format=json>; rel="alternate"`);
        expect(j.headers.link).toContain('rel="describedby"');
        expect(j.headers.link).toContain('</openapi.json>; rel="service-desc"');
        const d = SectionDescriptorSchema.parse(j.json());
        expect(d.section).toBe(section);
        expect(d.self).toBe(path);
        const md = await request(hub, path, { headers: { accept: '*/*' } });
        expect(md.headers['content-type']).toMatch(/^text\/markdown/);
        expect(md.headers.vary).toBe('Accept');
        const noAccept = await request(hub, path);
        expect(noAccept.text).toBe(md.text);
        const html = await request(hub, path, { headers: BROWSER });
        expect(html.headers['content-type']).toMatch(/^text\/html/);
        expect(html.text).toContain('<main id="main"');
        expect(html.headers.vary).toBe('Accept');
      });
    }
  }

  it('/models/ gives browsers the browse page and others the brief of /models, byte for byte', async () => {
    const browse = await request(hub, '/models/', { headers: BROWSER });
    expect(browse.text).toContain('id="filters"');
    expect(browse.text).toContain('synthetic-org/tiny-llama-GGUF');
    const a = await request(hub, '/models/', { headers: { accept: 'text/markdown' } });
    const b = await request(hub, '/models', { headers: { accept: 'text/markdown' } });
    expect(a.text).toBe(b.text);
    expect(a.bytes.length).toBeGreaterThan(100);
  });

  it('?format= overrides Accept, and a bad format is a clear 400', async () => {
    const r = await request(hub, '/registry?format=json', { headers: BROWSER });
    expect(r.json().section).toBe('registry');
    const bad = await request(hub, '/registry?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/format must be json, md or html/);
  });

  it('counts the models section from the index and names a catalog that hashes back', async () => {
    const d = SectionDescriptorSchema.parse((await request(hub, '/models', { headers: JSON_ACCEPT })).json());
    expect(d.inventory.described).toBe(3);
    expect(d.catalog?.address).toBe(catalog);
    const obj = await request(hub, (d.catalog?.fetch ?? '').replace('{catalog.address}', d.catalog?.address ?? ''));
    expect(obj.status).toBe(200);
    expect(addressOf(obj.bytes)).toBe(catalog);
    expect(d.verify.server_verifies_on_read).toBe(false);
  });

  it('spaces and buckets truthfully hold nothing; the docs section lists every page with its Markdown twin', async () => {
    for (const s of ['spaces', 'buckets']) {
      const d = SectionDescriptorSchema.parse((await request(hub, `/${s}`, { headers: JSON_ACCEPT })).json());
      expect(d.inventory.described).toBe(0);
      expect(d.catalog).toBeNull();
      expect(d.catalog_note).toBeTruthy();
    }
    const docs = SectionDescriptorSchema.parse((await request(hub, '/docs', { headers: JSON_ACCEPT })).json());
    expect(docs.pages?.map((p) => p.markdown)).toEqual(expect.arrayContaining(['/docs/sources.md', '/docs/verification.md']));
    for (const p of docs.pages ?? []) {
      const md = await request(hub, p.markdown);
      expect(md.status, p.markdown).toBe(200);
      const html = await request(hub, p.html, { headers: BROWSER });
      expect(html.status, p.html).toBe(200);
      expect(html.headers['content-type'], p.html).toMatch(/^text\/html/);
    }
  });

  it('runs every Request of every section descriptor as written (in process)', async () => {
    for (const section of SECTIONS) {
      const d = SectionDescriptorSchema.parse((await request(hub, `/${section}`, { headers: JSON_ACCEPT })).json());
      const reqs = [...d.list, d.item, d.fetch, ...(d.files ? [d.files] : [])];
      for (const r of reqs) {
        expect(r.url.startsWith('/'), r.url).toBe(true);
        const url = r.url.replace('{catalog.address}', d.catalog?.address ?? '{catalog.address}');
        expect(url, `${section}: ${r.url} needs a catalog`).not.toContain('{');
        const res = await request(hub, url);
        expect(res.status, `${section}: GET ${url}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${section}: GET ${url}`).toBeLessThan(400);
      }
    }
  });
});

describe('discovery documents', () => {
  it('serves the Descriptor with every field of the spec', async () => {
    const d = DescriptorSchema.parse((await request(hub, '/.well-known/model-hub.json')).json());
    for (const k of [
      'catalog',
      'snapshot',
      'fetch',
      'find',
      'publish',
      'openapi',
      'capabilities',
      'registry',
      'guide',
      'addresses',
      'kinds',
    ] as const) {
      expect(d[k], k).toBeTruthy();
    }
    expect(Object.keys(d.kinds ?? {}).sort()).toEqual([
      'model-hub.catalog',
      'model-hub.catalog-shard',
      'model-hub.model',
      'model-hub.source',
    ]);
  });

  it('serves identical OpenAPI bytes on both paths, version 1.0.0, cached 5 minutes', async () => {
    const a = await request(hub, '/openapi.json');
    const b = await request(hub, '/.well-known/openapi.json');
    expect(a.text).toBe(b.text);
    expect(a.headers['cache-control']).toBe('public, max-age=300');
    const doc = a.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('documents every route of hubRoutes(), with its error shape', async () => {
    const doc = (await request(hub, '/openapi.json')).json();
    const missing: string[] = [];
    for (const r of hubRoutes()) {
      const op = doc.paths[openapiPath(r.path).path]?.[r.method.toLowerCase()];
      if (!op) missing.push(`${r.method} ${r.path}: no entry`);
      else if (op['x-undocumented'])
        missing.push(`${r.method} ${r.path}: no declared answers (describe it beside the route: describeRoutes in its package)`);
      else {
        const err = op.responses['4XX']?.content;
        const want = { hub: 'HubError', objects: 'ApiError', oci: 'OciError', text: undefined }[r.errors];
        if (want) expect(JSON.stringify(err), `${r.method} ${r.path}`).toContain(`#/components/schemas/${want}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is a well-formed document: path parameters match the templates, $refs resolve, operationIds are unique', async () => {
    const doc = (await request(hub, '/openapi.json')).json();
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries<any>(ops)) {
        const declared = op.parameters
          .filter((p: any) => p.in === 'path')
          .map((p: any) => p.name)
          .sort();
        expect(declared, `${method} ${path}`).toEqual(inPath);
        expect(ids.has(op.operationId), op.operationId).toBe(false);
        ids.add(op.operationId);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      }
    }
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(doc.components.schemas[m[1] as string], m[1]).toBeTruthy();
  });

  it('serves the agent card, llms.txt, robots.txt and the favicon, 5 minutes cache on the documents', async () => {
    const card = await request(hub, '/.well-known/agent-card.json');
    const parsed = AgentCardSchema.parse(card.json());
    expect(parsed.skills.map((s) => s.id)).toEqual(['search', 'inspect', 'download-and-verify', 'oci-pull', 'mcp']);
    expect(parsed.url).toBe('http://hub.test');
    expect(card.headers['cache-control']).toBe('public, max-age=300');
    const llms = await request(hub, '/llms.txt');
    for (const p of [
      '/agent.md',
      '/openapi.json',
      '/docs/sources.md',
      '/docs/verification.md',
      '/docs/api.md',
      '/.well-known/agent-card.json',
      '/mcp',
      '/v2/',
    ]) {
      expect(llms.text).toContain(p);
    }
    expect(llms.headers['cache-control']).toBe('public, max-age=300');
    const robots = await request(hub, '/robots.txt');
    expect(robots.text).toMatch(/^User-agent: \*$/m);
    expect(robots.headers['cache-control']).toBe('public, max-age=300');
    const ico = await request(hub, '/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers['content-type']).toBe('image/x-icon');
    expect([...ico.bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
  });

  it('keeps the canary as the last line of the agent brief, a few hundred lines at most', async () => {
    const brief = (await request(hub, '/agent.md')).text;
    const lines = brief.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(BRIEF_CANARY);
    expect(lines.length).toBeLessThan(300);
    expect((await request(hub, '/agent.md')).headers['cache-control']).toBe('public, max-age=300');
  });
});

describe('site pages', () => {
  it('serves a model page with files, SHA-256, sources with health and commands', async () => {
    const res = await request(hub, '/models/synthetic-org/tiny-llama-GGUF');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const s of [
      'tiny-llama-Q4_K_M.gguf',
      '2'.repeat(64),
      'Mirror A',
      'mirror-b',
      'HF_ENDPOINT=http://hub.test hf download',
      'hf_hub_download',
      'ollama pull --insecure hub.test/synthetic-org/tiny-llama-gguf:Q4_K_M',
      'llama-cli -hf synthetic-org/tiny-llama-GGUF:Q4_K_M',
      'sha256sum -c',
      '/mcp',
    ]) {
      expect(res.text, s).toContain(s);
    }
    expect(res.text).toContain('1 of 3 files'); // mirror-b holds one path
  });

  it('shows a source going down without a new index (health is filled per request)', async () => {
    const t = await createTestHub();
    const h = composedHub(t.deps);
    // never probed (no probe file): offered, not checked
    expect((await request(h, '/models/synthetic-org/bert-ish')).text).toContain('offered, not checked');
    t.health.record('mirror-a', { ok: true, reason: '', at: 1_700_000_000_000 });
    expect((await request(h, '/models/synthetic-org/bert-ish')).text).toContain('class="ok">live');
    t.health.record('mirror-a', { ok: false, reason: 'timeout', at: 1_700_000_000_000 });
    const after = await request(h, '/models/synthetic-org/bert-ish');
    expect(after.text).toContain('class="bad">down');
    expect(after.text).toContain('timeout');
    expect((await request(h, '/health')).text).toContain('timeout');
  });

  it('answers HTML 404 below a section, and for unknown docs pages', async () => {
    for (const p of ['/models/nobody/nothing', '/models/nobody', '/docs/nothing.md']) {
      const r = await request(hub, p, { headers: { accept: 'application/json' } });
      expect(r.status, p).toBe(404);
      expect(r.headers['content-type'], p).toMatch(/^text\/html/);
    }
  });

  it('sorts the browse page server-side and filters without JavaScript through the form', async () => {
    const likes = (await request(hub, '/models/?sort=likes', { headers: BROWSER })).text;
    expect(likes.indexOf('synthetic-org/bert-ish')).toBeLessThan(likes.indexOf('synthetic-org/tiny-llama-GGUF'));
    const trending = (await request(hub, '/models/', { headers: BROWSER })).text;
    expect(trending.indexOf('synthetic-org/tiny-llama-GGUF')).toBeLessThan(trending.indexOf('synthetic-org/bert-ish'));
    const filtered = (await request(hub, '/models/?task=fill-mask', { headers: BROWSER })).text;
    expect(filtered).toContain('>synthetic-org/bert-ish<');
    expect(filtered).not.toContain('>synthetic-org/tiny-llama-GGUF<');
    expect(trending).not.toContain('Other-Owner/unlisted-model'); // not listed for browsing
    expect((await request(hub, '/models/?sort=nope', { headers: BROWSER })).status).toBe(400);
  });

  it('keeps the browse page under 300 KB for 500 SYNTHETIC models, and every page self-contained', async () => {
    const models: BuildModelInput[] = Array.from({ length: 500 }, (_, i) => ({
      id: `synthetic-owner-${i % 37}/synthetic-model-with-a-longish-name-${i}`,
      revision: i.toString(16).padStart(40, '0'),
      license: 'apache-2.0',
      files: [
        { path: 'config.json', size: 500 + i, sha256: (i + 1).toString(16).padStart(64, '0') },
        { path: `model-${i}.Q4_K_M.gguf`, size: 4_000_000_000 + i, sha256: (i + 100_000).toString(16).padStart(64, '0') },
      ],
      row: {
        downloads: 1_000_000 - i,
        likes: (i * 7919) % 5000,
        trendingScore: 500 - i,
        pipeline_tag: ['text-generation', 'fill-mask', 'image-classification', 'automatic-speech-recognition'][i % 4],
        library_name: ['transformers', 'gguf', 'diffusers'][i % 3],
      },
      sources: [{ source: 'mirror-a', type: 'http' }],
    }));
    const t = await createTestHub({ models });
    const h = composedHub(t.deps);
    for (const p of ['/models/', '/']) {
      const r = await request(h, p, { headers: BROWSER });
      expect(r.status).toBe(200);
      expect(r.bytes.byteLength, p).toBeLessThan(300 * 1024);
      expect((r.text.match(/<tr data-t=/g) ?? []).length).toBe(500);
      expect(r.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    }
    // Prepared once per index: the same bytes object is served twice.
    const a = await h.handle({
      method: 'GET',
      url: 'http://hub.test/models/',
      headers: { get: (n) => (n === 'accept' ? 'text/html' : null) },
      body: null,
    });
    const b = await h.handle({
      method: 'GET',
      url: 'http://hub.test/models/',
      headers: { get: (n) => (n === 'accept' ? 'text/html' : null) },
      body: null,
    });
    expect(a.body).toBe(b.body);
  });
});
