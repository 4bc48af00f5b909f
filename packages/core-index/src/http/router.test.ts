import { describe, expect, it } from 'vitest';
import type { Route } from './contract.js';
import { Router } from './router.js';

const route = (method: Route<unknown>['method'], path: string): Route<unknown> => ({
  method,
  path,
  rules: 'read',
  errors: 'hub',
  group: 'discovery',
  handler: () => ({ status: 200, headers: {}, body: null }),
});

const router = new Router<unknown>([
  route('GET', '/'),
  route('GET', '/api/models'),
  route('GET', '/api/models/:owner/:name'),
  route('GET', '/api/models/:owner/:name/tree/:rev'),
  route('GET', '/api/models/:owner/:name/tree/:rev/*path'),
  route('GET', '/:owner/:name/resolve/:rev/*path'),
  route('GET', '/via/:token/:owner/:name/resolve/:rev/*path'),
  route('POST', '/api/v1/objects'),
  route('GET', '/api/v1/objects'),
]);

describe('Router', () => {
  it('prefers static segments, then params, then a trailing rest', () => {
    const m = router.match('GET', '/api/models/acme/widget');
    expect(m).toMatchObject({ kind: 'found', route: { path: '/api/models/:owner/:name' }, params: { owner: 'acme', name: 'widget' } });
    const r = router.match('GET', '/acme/widget/resolve/main/a/b/c.gguf');
    expect(r).toMatchObject({ kind: 'found', params: { owner: 'acme', name: 'widget', rev: 'main', path: 'a/b/c.gguf' } });
    const via = router.match('GET', '/via/hf/acme/widget/resolve/main/x.bin');
    expect(via).toMatchObject({ kind: 'found', route: { path: '/via/:token/:owner/:name/resolve/:rev/*path' }, params: { token: 'hf' } });
  });

  it('decodes parameters only on a match, segment by segment', () => {
    const m = router.match('GET', '/api/models/acme/widget/tree/refs%2Fpr%2F1/a%20b/c%2Fd');
    expect(m).toMatchObject({ kind: 'found', params: { rev: 'refs/pr/1', path: 'a b/c/d' } });
  });

  it('maps HEAD onto GET and reports the allowed methods otherwise', () => {
    expect(router.match('HEAD', '/')).toMatchObject({ kind: 'found' });
    const m = router.match('DELETE', '/api/v1/objects');
    expect(m.kind).toBe('method');
    if (m.kind === 'method') expect(m.allowed.sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('tells unknown paths and bad percent-encoding apart', () => {
    expect(router.match('GET', '/nope')).toEqual({ kind: 'none' });
    expect(router.match('GET', '/api/models/acme')).toEqual({ kind: 'none' });
    expect(router.match('GET', '/acme/widget/resolve/main/%E0%A4%A').kind).toBe('bad-encoding');
  });

  it('treats a trailing slash as its own path', () => {
    expect(router.match('GET', '/api/models/').kind).toBe('none');
    expect(router.match('GET', '/acme/widget/resolve/main/').kind).toBe('none');
  });

  it('refuses conflicting or duplicate routes at build time', () => {
    expect(() => new Router([route('GET', '/a/:x'), route('GET', '/a/:y/b')])).toThrow();
    expect(() => new Router([route('GET', '/a'), route('GET', '/a')])).toThrow();
  });
});
