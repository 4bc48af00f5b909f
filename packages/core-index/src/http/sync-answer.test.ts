import { describe, expect, it } from 'vitest';
import { createTestHub } from '../testing/fixture.js';
import { type HubRequest, json, type Route } from './contract.js';
import { createHub } from './create-hub.js';
import type { CoreDeps } from './deps.js';

// A route whose handler answers at once is answered at once by `respond` (no promise, no microtask between request
// and answer: the cold look-up of a model read synchronously from a local disk), with the same answer `handle` gives;
// a handler that answers later, throws or rejects is answered as before, in the error shape of its route group.

const text = (body: unknown) => new TextDecoder().decode(body as Uint8Array);

function req(path: string, method = 'GET'): HubRequest {
  return { method, url: `http://hub.test${path}`, headers: { get: () => null }, body: null };
}

async function setup(policyRefuses = false) {
  const t = await createTestHub();
  const settings = policyRefuses
    ? {
        ...t.deps.settings,
        policy: { requireSignature: [{ models: 'synthetic-org/*', identity: 'someone@example.com', issuer: 'https://issuer.example' }] },
      }
    : t.deps.settings;
  const deps: CoreDeps = { ...t.deps, settings } as CoreDeps;
  const base = { rules: 'read', errors: 'oci', group: 'discovery', cache: 60 } as const;
  const routes: Route<CoreDeps>[] = [
    { ...base, method: 'GET', path: '/now', summary: 'at once', handler: () => json(200, { at: 'once' }) },
    { ...base, method: 'GET', path: '/later', summary: 'later', handler: async () => json(200, { at: 'later' }) },
    {
      ...base,
      method: 'GET',
      path: '/throws',
      summary: 'throws',
      handler: () => {
        throw new Error('boom');
      },
    },
    { ...base, method: 'GET', path: '/rejects', summary: 'rejects', handler: () => Promise.reject(new Error('boom')) },
    {
      ...base,
      method: 'GET',
      path: '/m/:owner/:name',
      summary: 'a model',
      subject: (p) => ({ id: `${p.owner}/${p.name}` }),
      handler: (ctx) => json(200, { id: `${ctx.params.owner}/${ctx.params.name}` }),
    },
  ];
  return createHub(deps, routes);
}

describe('respond answers at once when the handler does', () => {
  it('a synchronous handler: a value, not a promise, with the headers every answer gets', async () => {
    const hub = await setup();
    const out = hub.respond(req('/now'));
    expect(out).not.toBeInstanceOf(Promise);
    const res = out as Awaited<typeof out>;
    expect(res.status).toBe(200);
    expect(text(res.body)).toBe('{"at":"once"}');
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // handle gives the same answer, as a promise
    const viaHandle = await hub.handle(req('/now'));
    expect(viaHandle.status).toBe(200);
    expect(text(viaHandle.body)).toBe(text(res.body));
  });

  it('an asynchronous handler: a promise of the same kind of answer', async () => {
    const hub = await setup();
    const out = hub.respond(req('/later'));
    expect(out).toBeInstanceOf(Promise);
    expect(text((await out).body)).toBe('{"at":"later"}');
  });

  it('a handler that throws: at once, 500 in its group shape; one that rejects: a promise of the same', async () => {
    const hub = await setup();
    const thrown = hub.respond(req('/throws'));
    expect(thrown).not.toBeInstanceOf(Promise);
    const rejected = hub.respond(req('/rejects'));
    expect(rejected).toBeInstanceOf(Promise);
    for (const res of [thrown as Awaited<typeof thrown>, await rejected]) {
      expect(res.status).toBe(500);
      expect(JSON.parse(text(res.body))).toEqual({ errors: [{ code: 'UNKNOWN', message: expect.any(String) }] });
    }
  });

  it('the serving policy still refuses before the handler, at once when the model is read at once', async () => {
    const open = await setup();
    const allowed = open.respond(req('/m/synthetic-org/tiny-llama-GGUF'));
    expect(allowed).not.toBeInstanceOf(Promise);
    expect((allowed as Awaited<typeof allowed>).status).toBe(200);
    const closed = await setup(true);
    const refused = closed.respond(req('/m/synthetic-org/tiny-llama-GGUF'));
    expect(refused).not.toBeInstanceOf(Promise);
    expect((refused as Awaited<typeof refused>).status).toBe(403);
  });
});
