import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestIdentityProvider, type TestIdentityProvider } from '@hub/account/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubConfigFile } from '../src/config.js';
import { startTestHub, type TestHub } from './helpers.js';

const ISSUER = 'https://id.example.test';
const AUDIENCE = 'hub-site';
const SITE = 'https://site.example.test';
const ALICE = 'did:plc:synthetic-alice';
const BOB = 'did:web:synthetic-bob.example.test';

let idp: TestIdentityProvider;
let dataDir: string;
let alice: string;
let bob: string;

function config(extra: Record<string, unknown> = {}): HubConfigFile {
  return {
    account: { publicKey: idp.publicKeyPem, issuer: ISSUER, audience: AUDIENCE, siteOrigin: SITE, ...extra },
  } as HubConfigFile;
}

const bearer = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
const jsonHeaders = (token: string) => bearer(token, { 'content-type': 'application/json' });

beforeAll(async () => {
  idp = await createTestIdentityProvider({ issuer: ISSUER, audience: AUDIENCE });
  alice = await idp.sign({ sub: ALICE });
  bob = await idp.sign({ sub: BOB });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-account-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('accounts over real HTTP (SQLite store)', () => {
  it('keeps every account, saved list and request across a restart on the same data folder', async () => {
    let hub: TestHub = await startTestHub({ dataDir, config: config() });
    try {
      expect(await (await fetch(`${hub.url}/api/account/health`)).json()).toEqual({ ok: true, configured: true });
      const me = await fetch(`${hub.url}/api/account/me`, { headers: bearer(alice) });
      expect(me.status).toBe(200);
      const created = (await me.json()).created;
      let r = await fetch(`${hub.url}/api/account/saved`, {
        method: 'PUT',
        headers: jsonHeaders(alice),
        body: JSON.stringify({ saved: ['demo/tiny-llama-2-GGUF', 'someone/else'] }),
      });
      expect(r.status).toBe(200);
      r = await fetch(`${hub.url}/api/account/saved/demo/tiny-bert-synthetic`, { method: 'POST', headers: bearer(alice) });
      expect(await r.json()).toEqual({ saved: ['demo/tiny-llama-2-GGUF', 'someone/else', 'demo/tiny-bert-synthetic'] });
      r = await fetch(`${hub.url}/api/account/request`, {
        method: 'POST',
        headers: jsonHeaders(alice),
        body: JSON.stringify({ model: 'someone/not-indexed' }),
      });
      expect(r.status).toBe(201);
      r = await fetch(`${hub.url}/api/account/wallet`, {
        method: 'PUT',
        headers: jsonHeaders(alice),
        body: JSON.stringify({ wallet: '0xabc123' }),
      });
      expect(r.status).toBe(200);
      r = await fetch(`${hub.url}/api/account/saved/demo/tiny-bert-synthetic`, { method: 'POST', headers: bearer(bob) });
      expect(r.status).toBe(200);
      await hub.close();

      hub = await startTestHub({ dataDir, config: config() });
      r = await fetch(`${hub.url}/api/account/me`, { headers: bearer(alice) });
      expect(await r.json()).toEqual({
        did: ALICE,
        created,
        wallet: '0xabc123',
        saved: ['demo/tiny-llama-2-GGUF', 'someone/else', 'demo/tiny-bert-synthetic'],
        requests: 1,
      });
      r = await fetch(`${hub.url}/api/account/saved`, { headers: bearer(bob) });
      expect(await r.json()).toEqual({ saved: ['demo/tiny-bert-synthetic'] });
      r = await fetch(`${hub.url}/api/account/request`, {
        method: 'POST',
        headers: jsonHeaders(alice),
        body: JSON.stringify({ model: 'someone/not-indexed' }),
      });
      expect(r.status).toBe(409);
      expect((await r.json()).error).toMatch(/already asked/);
    } finally {
      await hub.close();
    }
  });

  it('50 parallel requests for the same model by one account: exactly one 201 and 49 × 409', async () => {
    const hub = await startTestHub({ config: config({ writes: { burst: 100, perSecond: 1 } }) });
    try {
      const token = await idp.sign({ sub: 'did:plc:synthetic-racer' });
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const r = await fetch(`${hub.url}/api/account/request`, {
            method: 'POST',
            headers: jsonHeaders(token),
            body: JSON.stringify({ model: 'race/model' }),
          });
          await r.arrayBuffer();
          return r.status;
        }),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    } finally {
      await hub.close();
    }
  });

  it('with the default limit a burst of writes gets 429 with Retry-After, and reads in the same burst all succeed', async () => {
    const hub = await startTestHub({ config: config() });
    try {
      const token = await idp.sign({ sub: 'did:plc:synthetic-burst' });
      const writes = Array.from({ length: 30 }, (_, i) =>
        fetch(`${hub.url}/api/account/saved/o/m${i}`, { method: 'POST', headers: bearer(token) }),
      );
      const reads = Array.from({ length: 30 }, () => fetch(`${hub.url}/api/account/saved`, { headers: bearer(token) }));
      const w = await Promise.all(writes);
      const r = await Promise.all(reads);
      const limited = w.filter((x) => x.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(9);
      expect(w.filter((x) => x.status === 200).length).toBeLessThanOrEqual(21);
      for (const x of limited) expect(Number(x.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.map((x) => x.status).every((s) => s === 200)).toBe(true);
    } finally {
      await hub.close();
    }
  });

  it('a valid token on read routes gives the anonymous answer; the token appears in no log line', async () => {
    const hub = await startTestHub({ config: config() });
    try {
      const [, , signature] = alice.split('.') as [string, string, string];
      for (const p of [
        '/api/hub/health',
        '/api/models',
        '/.well-known/model-hub.json',
        '/api/models/demo/tiny-llama-2-GGUF',
        '/api/models/nobody/nothing',
      ]) {
        const anon = await fetch(`${hub.url}${p}`);
        const signed = await fetch(`${hub.url}${p}`, { headers: bearer(alice, { cookie: `session=${alice}` }) });
        expect(signed.status, p).toBe(anon.status);
        expect(signed.status).not.toBe(401);
        expect(await signed.text(), p).toBe(await anon.text());
      }
      // Account routes, good and bad tokens, and an error path, so the hub has reasons to log.
      await fetch(`${hub.url}/api/account/me`, { headers: bearer(alice) });
      await fetch(`${hub.url}/api/account/me`, { headers: bearer(`${alice.slice(0, -4)}AAAA`) });
      await fetch(`${hub.url}/api/account/me`, { headers: bearer(`${alice}.x`) });
      await fetch(`${hub.url}/api/account/request`, { method: 'POST', headers: jsonHeaders(alice), body: '{broken' });
      await fetch(`${hub.url}/api/account/nothing`, { headers: bearer(alice) });
      await fetch(`${hub.url}/no/such/path`, { headers: bearer(alice) });
      expect(hub.logs.length).toBeGreaterThan(0);
      const all = hub.logs.join('\n');
      // The refusals were logged (by reason), the token never.
      expect(all).toMatch(/account token refused/);
      expect(all.includes(alice)).toBe(false);
      expect(all.includes(signature)).toBe(false);
      expect(all.includes(signature.slice(0, 24))).toBe(false);
    } finally {
      await hub.close();
    }
  });

  it('answers CORS preflights for the site origin only, with credentials', async () => {
    const hub = await startTestHub({ config: config() });
    try {
      const pre = await fetch(`${hub.url}/api/account/saved`, {
        method: 'OPTIONS',
        headers: { origin: SITE, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(SITE);
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
      const other = await fetch(`${hub.url}/api/account/saved`, {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example.test', 'access-control-request-method': 'PUT' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const me = await fetch(`${hub.url}/api/account/me`, { headers: bearer(alice, { origin: SITE }) });
      expect(me.headers.get('access-control-allow-origin')).toBe(SITE);
    } finally {
      await hub.close();
    }
  });

  it('without a key: 503 {error} on account routes and health configured: false', async () => {
    const hub = await startTestHub();
    try {
      expect(await (await fetch(`${hub.url}/api/account/health`)).json()).toEqual({ ok: true, configured: false });
      const r = await fetch(`${hub.url}/api/account/me`, { headers: bearer(alice) });
      expect(r.status).toBe(503);
      expect((await r.json()).error).toMatch(/account\.publicKey/);
    } finally {
      await hub.close();
    }
  });

  it('refuses to start with an unusable key, naming the fix', async () => {
    await expect(
      startTestHub({ config: { account: { publicKey: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----' } } }),
    ).rejects.toThrow(/PUBLIC KEY/);
  });
});
