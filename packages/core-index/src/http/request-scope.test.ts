import { describe, expect, it } from 'vitest';
import { createTestHub } from '../testing/fixture.js';
import { type HubRequest, json, type Route } from './contract.js';
import { createHub } from './create-hub.js';
import type { CoreDeps } from './deps.js';

/** Background work belongs to the request that started it (the edge hands each request's `ctx.waitUntil` in). */

function get(path: string): HubRequest {
  return { method: 'GET', url: `http://hub.test${path}`, headers: { get: () => null }, body: null };
}

describe('createHub request scope', () => {
  it('sends a request’s background work to its own scope, and to deps.defer without one', async () => {
    const t = await createTestHub();
    const hostDeferred: string[] = [];
    const deps: CoreDeps = {
      ...t.deps,
      defer: () => {
        hostDeferred.push('host');
      },
    };
    const route: Route<CoreDeps> = {
      method: 'GET',
      path: '/work/:name',
      rules: 'read',
      errors: 'hub',
      handler: (ctx) => {
        ctx.deps.defer(Promise.resolve(ctx.params.name));
        return json(200, { ok: true });
      },
    };
    const hub = createHub(deps, [route]);

    const a: Promise<unknown>[] = [];
    const b: Promise<unknown>[] = [];
    // Two requests in flight at once: each one's work lands in its own scope.
    const [ra, rb] = await Promise.all([
      hub.handle(get('/work/a'), { defer: (p) => void a.push(p) }),
      hub.handle(get('/work/b'), { defer: (p) => void b.push(p) }),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(await Promise.all(a)).toEqual(['a']);
    expect(await Promise.all(b)).toEqual(['b']);
    expect(hostDeferred).toEqual([]);

    await hub.handle(get('/work/c'));
    expect(hostDeferred).toEqual(['host']);
  });
});
