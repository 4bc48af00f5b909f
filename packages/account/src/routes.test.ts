import { createHub, json, type Route } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from './limiter.js';
import { type AccountDeps, type AccountServices, accountRoutes, MAX_SAVED } from './routes.js';
import { MemoryAccountStore } from './store.js';
import { createTestIdentityProvider, type TestIdentityProvider } from './testing/tokens.js';
import { createTokenVerifier } from './verify.js';

const NOW = 1_700_000_000_000;
const ISSUER = 'https://id.example.test';
const AUDIENCE = 'hub-site';
const SITE = 'https://site.example.test';
const DID = 'did:plc:synthetic-alice';

interface Setup {
  hub: ReturnType<typeof createHub>;
  deps: AccountDeps;
  store: MemoryAccountStore;
  idp: TestIdentityProvider;
  clock: { now: number };
  token: string;
}

async function setup(
  options: { configured?: boolean; limiter?: TokenBucketLimiter; keyAs?: 'pem' | 'jwk'; extraRoutes?: Route<AccountDeps>[] } = {},
): Promise<Setup> {
  const t = await createTestHub();
  const idp = await createTestIdentityProvider({ issuer: ISSUER, audience: AUDIENCE });
  const store = new MemoryAccountStore();
  const clock = { now: NOW };
  const accounts: AccountServices = { store, limiter: options.limiter ?? new TokenBucketLimiter({ burst: 20, perSecond: 1 }) };
  if (options.configured !== false) {
    accounts.verifier = await createTokenVerifier({
      publicKey: options.keyAs === 'jwk' ? idp.publicJwk : idp.publicKeyPem,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
  }
  const deps = { ...t.deps, now: () => clock.now, accounts, settings: { ...t.deps.settings, siteOrigin: SITE } };
  const routes = [...accountRoutes<AccountDeps>(), ...(options.extraRoutes ?? [])];
  const hub = createHub(deps, routes);
  const token = await idp.sign({ sub: DID }, { now: NOW });
  return { hub, deps, store, idp, clock, token };
}

const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
const body = (v: unknown) => JSON.stringify(v);

describe('account routes: tokens', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await setup();
  });

  it('health works without a token and says configured', async () => {
    const r = await request(s.hub, '/api/account/health');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ ok: true, configured: true });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('a valid token gives 200 with the did, and records the account', async () => {
    const r = await request(s.hub, '/api/account/me', { headers: auth(s.token) });
    expect(r.status).toBe(200);
    const me = r.json();
    expect(me).toEqual({ did: DID, created: new Date(NOW).toISOString(), wallet: null, saved: [], requests: 0 });
    expect(await s.store.account(DID)).toBeDefined();
  });

  it('accepts a JWK as the configured key', async () => {
    const j = await setup({ keyAs: 'jwk' });
    const r = await request(j.hub, '/api/account/me', { headers: auth(j.token) });
    expect(r.status).toBe(200);
    expect(r.json().did).toBe(DID);
  });

  it('allows 30 s of clock skew on exp and nbf', async () => {
    const expiredJustNow = await s.idp.sign({ sub: DID }, { now: NOW - 3600_000 - 10_000, expiresInSeconds: 3600 });
    expect((await request(s.hub, '/api/account/me', { headers: auth(expiredJustNow) })).status).toBe(200);
    const nbfSoon = await s.idp.sign({ sub: DID, nbf: Math.floor(NOW / 1000) + 20 }, { now: NOW });
    expect((await request(s.hub, '/api/account/me', { headers: auth(nbfSoon) })).status).toBe(200);
  });

  async function badTokens(): Promise<Record<string, string | undefined>> {
    const sec = Math.floor(NOW / 1000);
    const header = (h: object) => base64url.encode(JSON.stringify(h));
    const payload = base64url.encode(JSON.stringify({ sub: DID, iss: ISSUER, aud: AUDIENCE, iat: sec, exp: sec + 3600 }));
    const other = await generateKeyPair('ES256');
    const hs = await new SignJWT({ sub: DID, iss: ISSUER, aud: AUDIENCE })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(sec)
      .setExpirationTime(sec + 3600)
      .sign(new TextEncoder().encode(s.idp.publicKeyPem));
    const otherKey = await new SignJWT({ sub: DID, iss: ISSUER, aud: AUDIENCE })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuedAt(sec)
      .setExpirationTime(sec + 3600)
      .sign(other.privateKey);
    const valid = s.token;
    const [h, p] = valid.split('.') as [string, string, string];
    return {
      'no token': undefined,
      'not bearer': 'Basic dXNlcjpwYXNz',
      malformed: 'not-a-jwt',
      'garbage parts': 'aaa.bbb.ccc',
      'alg none': `${header({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'alg none with a signature': `${header({ alg: 'none', typ: 'JWT' })}.${payload}.${valid.split('.')[2]}`,
      'HS256 signed with the public key as secret': hs,
      'another key': otherKey,
      'tampered payload': `${h}.${base64url.encode(JSON.stringify({ sub: 'did:plc:mallory', iss: ISSUER, aud: AUDIENCE, exp: sec + 3600 }))}.${valid.split('.')[2]}`,
      'signature of another token': `${h}.${p}.${otherKey.split('.')[2]}`,
      expired: await s.idp.sign({ sub: DID }, { now: NOW - 7200_000, expiresInSeconds: 3600 }),
      'not yet valid': await s.idp.sign({ sub: DID, nbf: sec + 600 }, { now: NOW }),
      'wrong issuer': await s.idp.sign({ sub: DID, iss: 'https://evil.example.test' }, { now: NOW }),
      'wrong audience': await s.idp.sign({ sub: DID, aud: 'another-app' }, { now: NOW }),
      'no exp': await s.idp.sign({ sub: DID }, { now: NOW, expiresInSeconds: null }),
      'sub not a did': await s.idp.sign({ sub: 'alice' }, { now: NOW }),
      'no sub': await s.idp.sign({}, { now: NOW }),
      '100 KB token': `${h}.${base64url.encode(JSON.stringify({ sub: DID, pad: 'x'.repeat(100_000) }))}.${valid.split('.')[2]}`,
    };
  }

  const CASES = [
    'no token',
    'not bearer',
    'malformed',
    'garbage parts',
    'alg none',
    'alg none with a signature',
    'HS256 signed with the public key as secret',
    'another key',
    'tampered payload',
    'signature of another token',
    'expired',
    'not yet valid',
    'wrong issuer',
    'wrong audience',
    'no exp',
    'sub not a did',
    'no sub',
    '100 KB token',
  ];

  it('covers every bad token case', async () => {
    expect(Object.keys(await badTokens()).sort()).toEqual([...CASES].sort());
  });

  for (const name of CASES) {
    it(`${name}: 401 {error} with WWW-Authenticate: Bearer on every route, writing nothing`, async () => {
      const token = (await badTokens())[name];
      const calls: Array<[string, string, unknown?]> = [
        ['GET', '/api/account/me'],
        ['GET', '/api/account/saved'],
        ['PUT', '/api/account/saved', { saved: ['a/b'] }],
        ['POST', '/api/account/saved/a/b'],
        ['DELETE', '/api/account/saved/a/b'],
        ['POST', '/api/account/request', { model: 'a/b' }],
        ['POST', '/api/account/publish-interest'],
        ['PUT', '/api/account/wallet', { wallet: '0xabc' }],
      ];
      for (const [method, path, b] of calls) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (token !== undefined) headers.authorization = token.startsWith('Basic') ? token : `Bearer ${token}`;
        const r = await request(s.hub, path, { method, headers, body: b === undefined ? undefined : body(b) });
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(typeof r.json().error).toBe('string');
        expect(r.json().error.length).toBeGreaterThan(20);
        expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(r.headers['x-error-code']).toBe('Unauthorized');
        if (token) expect(r.text.includes(token.slice(-20)), 'the error echoes the token').toBe(false);
      }
      expect(await s.store.account(DID)).toBeUndefined();
      expect(await s.store.account('did:plc:mallory')).toBeUndefined();
      expect(await s.store.saved(DID)).toEqual([]);
      expect(await s.deps.missing.list()).toEqual([]);
    });
  }

  it('names the fix in the error', async () => {
    const cases = await badTokens();
    const msg = async (t: string | undefined) =>
      (await request(s.hub, '/api/account/me', { headers: t ? auth(t) : {} })).json().error as string;
    expect(await msg(undefined)).toMatch(/Authorization: Bearer/);
    expect(await msg(cases.expired)).toMatch(/expired.*sign in again/);
    expect(await msg(cases['wrong issuer'])).toMatch(/issuer/);
    expect(await msg(cases['wrong audience'])).toMatch(/audience/);
    expect(await msg(cases['HS256 signed with the public key as secret'])).toMatch(/HS256.*ES256/);
    expect(await msg(cases['alg none'])).toMatch(/unsigned/);
    expect(await msg(cases['100 KB token'])).toMatch(/over 8192|longer than 8192/);
    expect(await msg(cases['sub not a did'])).toMatch(/DID/);
  });
});

describe('account routes: resources', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await setup({ limiter: new TokenBucketLimiter({ burst: 1000, perSecond: 1 }) });
  });

  it('saves, lists, replaces and removes models', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    let r = await request(s.hub, '/api/account/saved', { headers: h });
    expect(r.json()).toEqual({ saved: [] });
    r = await request(s.hub, '/api/account/saved/synthetic-org/bert-ish', { method: 'POST', headers: h });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ saved: ['synthetic-org/bert-ish'] });
    // The index spelling is kept for known models; unknown ones as sent.
    r = await request(s.hub, '/api/account/saved/other-owner/UNLISTED-model', { method: 'POST', headers: h });
    expect(r.json()).toEqual({ saved: ['synthetic-org/bert-ish', 'Other-Owner/unlisted-model'] });
    r = await request(s.hub, '/api/account/saved/someone/not-indexed', { method: 'POST', headers: h });
    expect(r.json().saved).toHaveLength(3);
    r = await request(s.hub, '/api/account/saved/SYNTHETIC-ORG/bert-ish', { method: 'DELETE', headers: h });
    expect(r.json()).toEqual({ saved: ['Other-Owner/unlisted-model', 'someone/not-indexed'] });
    r = await request(s.hub, '/api/account/saved', { method: 'PUT', headers: h, body: body({ saved: ['b/two', 'a/one', 'B/TWO'] }) });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ saved: ['b/two', 'a/one'] });
    r = await request(s.hub, '/api/account/me', { headers: h });
    expect(r.json().saved).toEqual(['b/two', 'a/one']);
  });

  it('refuses bad saved lists with 400 {error}, never 500', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    const bad: Array<[string, string, string | undefined]> = [
      ['PUT', '/api/account/saved', '{not json'],
      ['PUT', '/api/account/saved', ''],
      ['PUT', '/api/account/saved', '"a string"'],
      ['PUT', '/api/account/saved', body({ saved: 'a/b' })],
      ['PUT', '/api/account/saved', body({ saved: ['no-slash'] })],
      ['PUT', '/api/account/saved', body({ saved: ['a/b/c'] })],
      ['PUT', '/api/account/saved', body({ saved: ['../etc'] })],
      ['PUT', '/api/account/saved', body({ saved: [42] })],
      ['PUT', '/api/account/saved', body({ saved: [`a/${'x'.repeat(300)}`] })],
      ['PUT', '/api/account/saved', body({ saved: Array.from({ length: MAX_SAVED + 1 }, (_, i) => `o/m${i}`) })],
      ['POST', '/api/account/saved/a%20b/c', undefined],
      ['POST', '/api/account/saved/a/..', undefined],
      ['POST', '/api/account/request', body({})],
      ['POST', '/api/account/request', body({ model: 'nope' })],
      ['POST', '/api/account/request', body([1, 2])],
      ['PUT', '/api/account/wallet', body({})],
      ['PUT', '/api/account/wallet', body({ wallet: 'has space' })],
      ['PUT', '/api/account/wallet', body({ wallet: 'x'.repeat(500) })],
      ['PUT', '/api/account/wallet', body({ wallet: 42 })],
      ['PUT', '/api/account/wallet', '[1,'],
    ];
    for (const [method, path, b] of bad) {
      const r = await request(s.hub, path, { method, headers: h, body: b });
      expect(r.status, `${method} ${path} ${b?.slice(0, 40)}`).toBe(400);
      expect(typeof r.json().error).toBe('string');
    }
    expect(await s.store.saved(DID)).toEqual([]);
  });

  it('accepts exactly 1000 saved ids, refuses a 1001st by POST with 409', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    const list = Array.from({ length: MAX_SAVED }, (_, i) => `o/m${i}`);
    expect((await request(s.hub, '/api/account/saved', { method: 'PUT', headers: h, body: body({ saved: list }) })).status).toBe(200);
    const r = await request(s.hub, '/api/account/saved/o/extra', { method: 'POST', headers: h });
    expect(r.status).toBe(409);
    expect(r.json().error).toMatch(/remove one/);
  });

  it('refuses a body over 64 KiB with 413 {error}', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    const r = await request(s.hub, '/api/account/saved', { method: 'PUT', headers: h, body: body({ saved: [], pad: 'x'.repeat(70_000) }) });
    expect(r.status).toBe(413);
    expect(typeof r.json().error).toBe('string');
  });

  it('records a request, sends unknown ids to the missing log, and answers 409 the second time', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    let r = await request(s.hub, '/api/account/request', { method: 'POST', headers: h, body: body({ model: 'someone/unknown-model' }) });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ model: 'someone/unknown-model', queued: true, indexed: false });
    expect(await s.deps.missing.list()).toEqual(['someone/unknown-model']);
    r = await request(s.hub, '/api/account/request', { method: 'POST', headers: h, body: body({ model: 'Someone/Unknown-Model' }) });
    expect(r.status).toBe(409);
    expect(r.headers['x-error-code']).toBe('AlreadyRequested');
    r = await request(s.hub, '/api/account/request', { method: 'POST', headers: h, body: body({ model: 'synthetic-org/bert-ish' }) });
    expect(r.status).toBe(201);
    expect(r.json().indexed).toBe(true);
    expect(await s.deps.missing.list()).toEqual(['someone/unknown-model']);
    expect((await request(s.hub, '/api/account/me', { headers: h })).json().requests).toBe(2);
    // Another account may ask for the same model.
    const bob = await s.idp.sign({ sub: 'did:plc:synthetic-bob' }, { now: NOW });
    r = await request(s.hub, '/api/account/request', {
      method: 'POST',
      headers: auth(bob),
      body: body({ model: 'someone/unknown-model' }),
    });
    expect(r.status).toBe(201);
  });

  it('50 parallel requests for the same model by one account: exactly one 201 and 49 × 409', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        request(s.hub, '/api/account/request', { method: 'POST', headers: h, body: body({ model: 'race/model' }) }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(1);
    expect(statuses.filter((x) => x === 409)).toHaveLength(49);
    expect((await s.store.account(DID))?.requests).toBe(1);
  });

  it('records a wallet (as a string, never trusted) and clears it with null', async () => {
    const h = auth(s.token, { 'content-type': 'application/json' });
    let r = await request(s.hub, '/api/account/wallet', {
      method: 'PUT',
      headers: h,
      body: body({ wallet: '0x52908400098527886E0F7030069857D2E4169EE7' }),
    });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ did: DID, wallet: '0x52908400098527886E0F7030069857D2E4169EE7' });
    r = await request(s.hub, '/api/account/wallet', { method: 'PUT', headers: h, body: body({ wallet: null }) });
    expect(r.json().wallet).toBeNull();
  });

  it('records publish interest once', async () => {
    const h = auth(s.token);
    const r1 = await request(s.hub, '/api/account/publish-interest', { method: 'POST', headers: h });
    expect(r1.status).toBe(200);
    expect(r1.json().publishInterest).toBe(new Date(NOW).toISOString());
    s.clock.now += 60_000;
    const r2 = await request(s.hub, '/api/account/publish-interest', { method: 'POST', headers: h });
    expect(r2.json().publishInterest).toBe(new Date(NOW).toISOString());
    expect((await s.store.account(DID))?.publishInterest).toBe(new Date(NOW).toISOString());
  });

  it('answers 405 {error} for a wrong method and 404 {error} under the prefix', async () => {
    const h = auth(s.token);
    const r = await request(s.hub, '/api/account/saved/a/b', { method: 'GET', headers: h });
    expect(r.status).toBe(405);
    expect(typeof r.json().error).toBe('string');
    const n = await request(s.hub, '/api/account/nothing', { headers: h });
    expect(n.status).toBe(404);
    expect(typeof n.json().error).toBe('string');
  });
});

describe('account routes: rate limit', () => {
  it('a burst of writes gets 429 with Retry-After while reads in the same burst all succeed; tokens refill with deps.now()', async () => {
    const s = await setup({ limiter: new TokenBucketLimiter({ burst: 20, perSecond: 1 }) });
    const h = auth(s.token, { 'content-type': 'application/json' });
    const writes: Promise<{ status: number; headers: Record<string, string> }>[] = [];
    const reads: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(request(s.hub, `/api/account/saved/o/m${i}`, { method: 'POST', headers: h }));
      reads.push(request(s.hub, i % 2 ? '/api/account/saved' : '/api/account/me', { headers: h }));
    }
    const w = await Promise.all(writes);
    const r = await Promise.all(reads);
    expect(w.filter((x) => x.status === 200)).toHaveLength(20);
    const limited = w.filter((x) => x.status === 429);
    expect(limited).toHaveLength(20);
    for (const x of limited) {
      expect(Number(x.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(x.headers['x-error-code']).toBe('TooManyRequests');
    }
    expect(r.every((x) => x.status === 200)).toBe(true);
    expect(await s.store.saved(DID)).toHaveLength(20);

    // Another account has its own bucket.
    const bob = await s.idp.sign({ sub: 'did:plc:synthetic-bob' }, { now: NOW });
    expect((await request(s.hub, '/api/account/saved/o/x', { method: 'POST', headers: auth(bob) })).status).toBe(200);

    // After Retry-After seconds on the injected clock, one more write goes through.
    s.clock.now += 1000;
    expect((await request(s.hub, '/api/account/saved/o/late', { method: 'POST', headers: h })).status).toBe(200);
    expect((await request(s.hub, '/api/account/saved/o/late2', { method: 'POST', headers: h })).status).toBe(429);
  });
});

describe('account routes: not configured', () => {
  it('answers 503 {error} on every route but health, which says configured: false', async () => {
    const s = await setup({ configured: false });
    const health = await request(s.hub, '/api/account/health');
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ ok: true, configured: false });
    const calls: Array<[string, string]> = [
      ['GET', '/api/account/me'],
      ['GET', '/api/account/saved'],
      ['PUT', '/api/account/saved'],
      ['POST', '/api/account/saved/a/b'],
      ['DELETE', '/api/account/saved/a/b'],
      ['POST', '/api/account/request'],
      ['POST', '/api/account/publish-interest'],
      ['PUT', '/api/account/wallet'],
    ];
    for (const [method, path] of calls) {
      const r = await request(s.hub, path, { method, headers: auth(s.token), body: '{}' });
      expect(r.status, `${method} ${path}`).toBe(503);
      expect(r.json().error).toMatch(/account\.publicKey/);
    }
  });

  it('answers 503 when the deps have no accounts at all', async () => {
    const t = await createTestHub();
    const hub = createHub<AccountDeps>(t.deps, accountRoutes<AccountDeps>());
    expect((await request(hub, '/api/account/health')).json()).toEqual({ ok: true, configured: false });
    expect((await request(hub, '/api/account/me')).status).toBe(503);
  });
});

describe('account token on other routes', () => {
  const seen: Array<string | null> = [];
  const spy: Route<AccountDeps> = {
    method: 'GET',
    path: '/api/hub/spy',
    rules: 'read',
    errors: 'hub',
    group: 'account',
    handler: ({ req }) => {
      seen.push(req.headers.get('authorization'));
      return json(200, { ok: true });
    },
  };

  it('a valid account token on a read route gives the same answer as anonymous, and the handler never sees it', async () => {
    const s = await setup({ extraRoutes: [spy] });
    for (const path of ['/api/hub/health', '/.well-known/model-hub.json', '/api/hub/spy']) {
      const anon = await request(s.hub, path, { headers: { accept: 'application/json' } });
      const signed = await request(s.hub, path, { headers: auth(s.token, { accept: 'application/json' }) });
      expect(signed.status, path).toBe(anon.status);
      expect(signed.status).not.toBe(401);
      expect(signed.text).toBe(anon.text);
      expect(signed.headers['access-control-allow-origin']).toBe('*');
    }
    expect(seen).toEqual([null, null]);
  });
});

describe('account routes: CORS', () => {
  it('allows only the site origin, with credentials, including the preflight', async () => {
    const s = await setup();
    const pre = await request(s.hub, '/api/account/saved', {
      method: 'OPTIONS',
      headers: { origin: SITE, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(SITE);
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
    expect(pre.headers['access-control-allow-methods']).toMatch(/PUT/);
    expect(pre.headers['access-control-allow-headers']?.toLowerCase()).toMatch(/authorization/);

    // A POST-only path gets the same preflight.
    const postOnly = await request(s.hub, '/api/account/request', {
      method: 'OPTIONS',
      headers: { origin: SITE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(postOnly.status).toBe(204);
    expect(postOnly.headers['access-control-allow-origin']).toBe(SITE);
    expect(postOnly.headers['access-control-allow-methods']).toMatch(/POST/);

    const evilPre = await request(s.hub, '/api/account/saved', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'PUT' },
    });
    expect(evilPre.headers['access-control-allow-origin']).toBeUndefined();

    const ok = await request(s.hub, '/api/account/me', { headers: auth(s.token, { origin: SITE }) });
    expect(ok.headers['access-control-allow-origin']).toBe(SITE);
    expect(ok.headers['access-control-allow-credentials']).toBe('true');
    expect(ok.headers.vary).toMatch(/Origin/);
    const evil = await request(s.hub, '/api/account/me', { headers: auth(s.token, { origin: 'https://evil.example.test' }) });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    // Errors carry the site CORS too, so the site can read them.
    const unauth = await request(s.hub, '/api/account/me', { headers: { origin: SITE } });
    expect(unauth.status).toBe(401);
    expect(unauth.headers['access-control-allow-origin']).toBe(SITE);
  });
});
