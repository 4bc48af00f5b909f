import { type Address, addressOf, buildIndex, loadIndex, MemoryObjectStore, sha256Hex } from '@hub/core-index';
import { createTestHub, request, SYNTHETIC_MODELS } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { composedHub } from '../testing/test-hub.js';

/** Two SYNTHETIC days in one store; the hub serves the second. */
async function twoDays() {
  const t = await createTestHub({ date: '2026-11-21' });
  const objects = t.objects as MemoryObjectStore;
  const changed = SYNTHETIC_MODELS.map((m, i) => (i === 0 ? { ...m, revision: 'd'.repeat(40) } : m));
  const second = await buildIndex(objects, {
    date: '2026-11-22',
    models: changed,
    codeCommit: 'e'.repeat(40),
    archive: { registry: 'hub/index' },
    now: () => 1_700_000_100_000,
  });
  const index = await loadIndex(objects, second.catalog);
  const deps = { ...t.deps, index: () => index };
  return { hub: composedHub(deps), first: t.catalog, second: second.catalog, objects };
}

describe('GET /api/hub/archive', () => {
  it('lists the days newest first, chained through prev, with counts, the code commit and the registry', async () => {
    const { hub, first, second } = await twoDays();
    const res = await request(hub, '/api/hub/archive');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const a = res.json();
    expect(a.format).toBe('svc.model-hub.archive/v1');
    expect(a.registry).toBe('hub/index');
    expect(a.days.map((d: { date: string }) => d.date)).toEqual(['2026-11-22', '2026-11-21']);
    expect(a.days[0]).toMatchObject({ index: second, catalog: second, prev: first, models: 3, source: 'e'.repeat(40) });
    expect(a.days[1]).toMatchObject({ index: first, prev: null });
    const etag = res.headers.etag as string;
    expect((await request(hub, '/api/hub/archive', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });
});

describe('GET /api/hub/pins', () => {
  it('answers an empty Pins document without a pins ref, leaves hidden pins out, and 503s on an unreadable one', async () => {
    const t = await createTestHub();
    const hub = composedHub(t.deps);
    const empty = await request(hub, '/api/hub/pins');
    expect(empty.status).toBe(200);
    expect(empty.json()).toEqual({ format: 'svc.model-hub.pins/v1', gateway: 'https://ipfs.io', models: {} });

    const t2 = await createTestHub();
    await t2.objects.writeRef(
      'pins',
      JSON.stringify({
        format: 'svc.model-hub.pins/v1',
        gateway: 'https://gw.example',
        models: {
          'a/b': { root: 'bafySYNTHETIC1', revision: 'a'.repeat(40), pinned: '2026-11-01' },
          'c/d': { root: 'bafySYNTHETIC2', revision: 'b'.repeat(40), hidden: true },
        },
      }),
    );
    const pins = (await request(composedHub(t2.deps), '/api/hub/pins')).json();
    expect(pins.gateway).toBe('https://gw.example');
    expect(Object.keys(pins.models)).toEqual(['a/b']);

    const t3 = await createTestHub();
    await t3.objects.writeRef('pins', '{"format":"wrong"}');
    const bad = await request(composedHub(t3.deps), '/api/hub/pins');
    expect(bad.status).toBe(503);
    expect(bad.headers['x-error-code']).toBe('PinsUnreadable');
    expect(bad.json().error).toContain('pins.json');
  });
});

describe('the archive as OCI artifacts', () => {
  it('lists hub/index in /v2/_catalog with one tag per day, serves each manifest and its catalog layer', async () => {
    const { hub, first, second, objects } = await twoDays();
    const cat = (await request(hub, '/v2/_catalog')).json();
    expect(cat.repositories).toContain('hub/index');
    expect([...cat.repositories].sort()).toEqual(cat.repositories);
    const tags = (await request(hub, '/v2/hub/index/tags/list')).json();
    expect(tags).toEqual({ name: 'hub/index', tags: ['2026-11-21', '2026-11-22', 'latest'] });
    // `n` and `last` as the OCI distribution spec says (end-8b): n tags after `last`, a Link to the next page while
    // more remain, none on the last page, and an empty list without a Link for n=0.
    const page = async (query: string) => {
      const res = await request(hub, `/v2/hub/index/tags/list${query}`);
      return { status: res.status, tags: res.json().tags, link: res.headers.link };
    };
    expect(await page('?n=1')).toEqual({
      status: 200,
      tags: ['2026-11-21'],
      link: '<http://hub.test/v2/hub/index/tags/list?n=1&last=2026-11-21>; rel="next"',
    });
    expect(await page('?n=1&last=2026-11-21')).toMatchObject({ tags: ['2026-11-22'], link: expect.stringContaining('last=2026-11-22') });
    expect(await page('?n=1&last=2026-11-22')).toEqual({ status: 200, tags: ['latest'], link: undefined });
    expect(await page('?n=5')).toEqual({ status: 200, tags: ['2026-11-21', '2026-11-22', 'latest'], link: undefined });
    expect(await page('?last=2026-11-21')).toEqual({ status: 200, tags: ['2026-11-22', 'latest'], link: undefined });
    expect(await page('?n=0')).toEqual({ status: 200, tags: [], link: undefined });
    const bad = await request(hub, '/v2/hub/index/tags/list?n=-1');
    expect([bad.status, bad.json().errors[0].code]).toEqual([400, 'PAGINATION_NUMBER_INVALID']);
    for (const [tag, address] of [
      ['2026-11-21', first],
      ['2026-11-22', second],
      ['latest', second],
    ] as const) {
      const res = await request(hub, `/v2/hub/index/manifests/${tag}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/vnd.oci.image.manifest.v1+json');
      expect(res.headers['docker-content-digest']).toBe(`sha256:${sha256Hex(res.bytes)}`);
      const m = res.json();
      expect(m.artifactType).toBe('application/vnd.svc.model-hub.catalog.v1+json');
      expect(m.layers).toHaveLength(1);
      const catalogBytes = (await objects.get(address as Address))!.bytes;
      expect(m.layers[0]).toMatchObject({ digest: `sha256:${sha256Hex(catalogBytes)}`, size: catalogBytes.byteLength });
      expect(m.layers[0].annotations['svc.model-hub.address']).toBe(address);
      const blob = await request(hub, `/v2/hub/index/blobs/${m.layers[0].digest}`);
      expect(blob.status).toBe(200);
      expect(addressOf(blob.bytes)).toBe(address);
      const config = await request(hub, `/v2/hub/index/blobs/${m.config.digest}`);
      expect(config.text).toBe('{}');
      const byDigest = await request(hub, `/v2/hub/index/manifests/${res.headers['docker-content-digest']}`);
      expect(byDigest.bytes).toEqual(res.bytes);
    }
    const unknown = await request(hub, '/v2/hub/index/manifests/1999-01-01');
    expect(unknown.status).toBe(404);
    expect(unknown.json().errors[0].code).toBe('MANIFEST_UNKNOWN');
    expect((await request(hub, `/v2/hub/index/blobs/sha256:${'0'.repeat(64)}`)).status).toBe(404);
    // Models still answer as before.
    expect((await request(hub, '/v2/synthetic-org/tiny-llama-gguf/tags/list')).status).toBe(200);
  });

  it('has no archive repository before any day is archived', async () => {
    const t = await createTestHub();
    const objects = new MemoryObjectStore();
    const deps = { ...t.deps, objects };
    const hub = composedHub(deps);
    expect((await request(hub, '/v2/_catalog')).json().repositories).not.toContain('hub/index');
    expect((await request(hub, '/v2/hub/index/tags/list')).status).toBe(404);
  });
});
