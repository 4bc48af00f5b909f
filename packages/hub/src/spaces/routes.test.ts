import { addressOf } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { publishSpace, storeSpaceSink } from '@hub/objects';
import { describe, expect, it } from 'vitest';
import { composedHub } from '../testing/test-hub.js';

const enc = (s: string) => new TextEncoder().encode(s);

async function setup() {
  const t = await createTestHub();
  const hub = composedHub(t.deps);
  const sink = storeSpaceSink(t.deps);
  return { ...t, hub, sink };
}

describe('/spaces/{name}/… and /spaces/blake3:{root}/…', () => {
  it('serves the entry and files of the current root, sandboxed, with the file address as ETag', async () => {
    const { hub, sink } = await setup();
    const html = enc('<!doctype html><script src="app.js"></script>');
    const js = enc('document.title = "ran";');
    const { root } = await publishSpace(
      [
        { path: 'index.html', bytes: html },
        { path: 'lib/app.js', bytes: js },
      ],
      { name: 'demo' },
      sink,
    );
    const entry = await request(hub, '/spaces/demo/');
    expect(entry.status).toBe(200);
    expect(entry.bytes).toEqual(html);
    expect(entry.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      etag: `"${addressOf(html)}"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox allow-scripts allow-forms allow-downloads',
      'cache-control': 'public, max-age=60',
      'x-space-root': root,
    });
    expect(entry.headers['content-security-policy']).not.toContain('allow-same-origin');
    const file = await request(hub, '/spaces/demo/lib/app.js');
    expect(file.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(file.bytes).toEqual(js);
    const sealed = await request(hub, `/spaces/${root}/lib/app.js`);
    expect(sealed.status).toBe(200);
    expect(sealed.bytes).toEqual(js);
    expect(sealed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await request(hub, `/spaces/${root}/`)).bytes).toEqual(html);
    // Conditional GET on the file address.
    expect((await request(hub, '/spaces/demo/lib/app.js', { headers: { 'if-none-match': `"${addressOf(js)}"` } })).status).toBe(304);
  });

  it('redirects /spaces/{name} to the slash; unknown spaces and paths are 404 naming what exists', async () => {
    const { hub, sink } = await setup();
    const { root } = await publishSpace([{ path: 'index.html', bytes: enc('<p>hi</p>') }], { name: 'demo' }, sink);
    const redirect = await request(hub, '/spaces/demo?x=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/spaces/demo/?x=1');
    expect((await request(hub, `/spaces/${root}`)).headers.location).toBe(`/spaces/${root}/`);
    const noSpace = await request(hub, '/spaces/nope/');
    expect(noSpace.status).toBe(404);
    expect(noSpace.json().error).toContain('Spaces here: demo');
    const noFile = await request(hub, '/spaces/demo/missing.js');
    expect(noFile.status).toBe(404);
    expect(noFile.json().error).toContain('Its files: index.html');
    const noRoot = await request(hub, `/spaces/${addressOf(enc('x'))}/`);
    expect(noRoot.status).toBe(404);
    expect(noRoot.json()).toHaveProperty('error');
  });

  it('a changed file gives a new root; the old sealed URL still answers the old bytes', async () => {
    const { hub, sink } = await setup();
    const v1 = await publishSpace([{ path: 'index.html', bytes: enc('one') }], { name: 'demo' }, sink);
    const same = await publishSpace([{ path: 'index.html', bytes: enc('one') }], { name: 'demo' }, sink);
    expect(same).toMatchObject({ root: v1.root, changed: false, uploaded: 0 });
    const v2 = await publishSpace([{ path: 'index.html', bytes: enc('two') }], { name: 'demo' }, sink);
    expect(v2.root).not.toBe(v1.root);
    expect((await request(hub, '/spaces/demo/')).text).toBe('two');
    expect((await request(hub, `/spaces/${v1.root}/`)).text).toBe('one');
    expect((await request(hub, `/spaces/${v2.root}/`)).text).toBe('two');
  });
});

describe('the spaces section', () => {
  it('describes the published spaces: catalog address = BLAKE3 of what catalog.fetch returns; every Request runs', async () => {
    const { hub, sink } = await setup();
    const empty = (await request(hub, '/spaces', { headers: { accept: 'application/json' } })).json();
    expect(empty.catalog).toBeNull();
    const { root } = await publishSpace(
      [{ path: 'index.html', bytes: enc('<p>hi</p>') }],
      { name: 'demo', title: 'Demo space', about: 'says hi' },
      sink,
    );
    for (const self of ['/spaces', '/spaces/']) {
      const d = (await request(hub, self, { headers: { accept: 'application/json' } })).json();
      expect(d).toMatchObject({
        section: 'spaces',
        self,
        inventory: { described: 1, served_here: 1 },
        catalog: { format: 'model-hub.spaces' },
      });
      const catalog = await request(hub, d.catalog.fetch.replace('{catalog.address}', d.catalog.address));
      expect(addressOf(catalog.bytes)).toBe(d.catalog.address);
      expect(catalog.json().spaces).toEqual({ demo: root });
      for (const r of [...d.list, d.item, d.files, d.fetch]) {
        const res = await request(hub, r.url.replace('{catalog.address}', d.catalog.address));
        expect(res.status, r.url).toBe(200);
      }
      expect(d.verify).toMatchObject({ algorithm: 'blake3', server_verifies_on_read: false });
    }
    const html = await request(hub, '/spaces', { headers: { accept: 'text/html' } });
    expect(html.text).toContain('Demo space');
    expect(html.text).toContain('/spaces/-/demo');
    const pageOf = await request(hub, '/spaces/-/demo');
    expect(pageOf.status).toBe(200);
    expect(pageOf.text).toContain(root);
    expect(pageOf.text).toContain('index.html');
    expect((await request(hub, '/spaces/-/nope')).status).toBe(404);
    expect((await request(hub, '/spaces')).text).toContain(`Catalog: \``);
  });
});

describe('a space that is not there (issue 27)', () => {
  it('is the site 404 page to a browser and {error} to anything else, sandboxed either way', async () => {
    const { hub } = await setup();
    const page = await request(hub, '/spaces/nonexistent/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('No space named nonexistent');
    expect(page.headers['content-security-policy']).toContain('sandbox');
    const api = await request(hub, '/spaces/nonexistent/');
    expect(api.status).toBe(404);
    expect(api.json().error).toContain('No space named nonexistent');
    expect(api.headers['content-security-policy']).toContain('sandbox');
  });
});
