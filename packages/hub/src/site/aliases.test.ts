import type { Hub } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { composedHub } from '../testing/test-hub.js';

/** The addresses a new user tries first (issue 27), over the whole route table. */
let hub: Hub;
let missing: () => Promise<string[]>;
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const BERT = 'synthetic-org/bert-ish';

beforeAll(async () => {
  const t = await createTestHub();
  hub = composedHub(t.deps);
  missing = () => t.deps.missing.list();
});

describe("the public host's addresses", () => {
  it('/{owner}/{name} is the model page (302), for a browser and for curl alike', async () => {
    for (const headers of [BROWSER, {}]) {
      const r = await request(hub, `/${BERT}`, { headers });
      expect(r.status).toBe(302);
      expect(r.headers.location).toBe(`/models/${BERT}`);
    }
    // the id's case as the index writes it
    expect((await request(hub, '/Synthetic-Org/BERT-ish')).headers.location).toBe(`/models/${BERT}`);
  });

  it('/{owner}/{name}/blob/{rev}/{path} is the file (302 to /resolve/)', async () => {
    const r = await request(hub, `/${BERT}/blob/main/config.json`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe(`/${BERT}/resolve/main/config.json`);
  });

  it('a model not in the index: the 404 page to a browser, one line of text to curl', async () => {
    const page = await request(hub, '/nobody/nothing', { headers: BROWSER });
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('nobody/nothing is not in today');
    const text = await request(hub, '/nobody/nothing');
    expect(text.status).toBe(404);
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect((await request(hub, '/nobody/nothing/blob/main/x.bin')).status).toBe(404);
  });

  it('/api/models/owner%2Fname is the model, and nothing is recorded as missing', async () => {
    const r = await request(hub, '/api/models/synthetic-org%2Fbert-ish');
    expect(r.status).toBe(200);
    expect(r.json().id).toBe(BERT);
    expect(await missing()).not.toContain(BERT);
    // and with a query, which the route reads from the context it answers as
    const blobs = await request(hub, '/api/models/synthetic-org%2Fbert-ish?blobs=true');
    expect(blobs.status).toBe(200);
    expect(blobs.json<{ siblings: Array<{ size?: number }> }>().siblings[0]?.size).toBeGreaterThan(0);
    // a one-segment id stays RepoNotFound
    const one = await request(hub, '/api/models/gpt2');
    expect(one.status).toBe(404);
    expect(one.headers['x-error-code']).toBe('RepoNotFound');
  });
});

describe('a trailing slash', () => {
  it.each([
    ['/api/models/', '/api/models'],
    ['/api/models/?search=bert&limit=1', '/api/models?search=bert&limit=1'],
    ['/api/hub/health/', '/api/hub/health'],
    [`/models/${BERT}/`, `/models/${BERT}`],
    [`/${BERT}/`, `/${BERT}`],
  ])('%s → 308 %s', async (path, location) => {
    const r = await request(hub, path);
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe(location);
    // and the target answers
    expect((await request(hub, location)).status).toBeLessThan(400);
  });

  it('never redirects off the origin, and a path without a route stays 404', async () => {
    for (const path of ['//evil.example/', '/%5Cevil.example/', '/no/such/route/here/']) {
      const r = await request(hub, path);
      expect(r.status, path).toBe(404);
      expect(r.headers.location).toBeUndefined();
    }
  });
});

describe('CORS preflights', () => {
  it('a read-only route advertises only GET, HEAD (and POST where the path takes it)', async () => {
    const pre = (path: string) =>
      request(hub, path, { method: 'OPTIONS', headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' } });
    expect((await pre('/api/models')).headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    const mcp = (await pre('/mcp')).headers['access-control-allow-methods'];
    expect(mcp).toContain('POST');
    expect(mcp).not.toContain('PUT');
  });

  it("a preflight for an unknown object does not carry the object route's immutable cache policy", async () => {
    const r = await request(hub, `/api/v1/objects/blake3:${'0'.repeat(64)}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['cache-control'] ?? '').not.toContain('immutable');
  });
});
