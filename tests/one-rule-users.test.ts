import { createTokenVerifier, MemoryAccountStore, TokenBucketLimiter } from '@hub/account';
import { createTestIdentityProvider } from '@hub/account/testing';
import {
  type BuildModelInput,
  DEFAULT_IPFS_GATEWAY,
  DEFAULT_SOURCES,
  emptyPins,
  formatBytes,
  MemoryMissingLog,
  recordMissing,
  SOURCE_KIND_INFO,
  shellQuote,
  silentLogger,
} from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { createComposedTestHub } from '@hub/hub/testing';
import { describe, expect, it } from 'vitest';

/**
 * One definition per rule, guarded by behaviour (issue 25): each guard calls every user of a rule and compares what
 * it does with the rule itself, so a second copy fails here by what it answers, however it is spelled.
 */

const REV = 'e'.repeat(40);
const sha = (n: number) => n.toString(16).padStart(64, '0');
// SYNTHETIC model: made-up id, names, sizes and digests; sizes chosen where binary and decimal units differ
const SIZES = [1536, 5 * 1024 * 1024 + 1, 3 * 1024 ** 3];
const MODEL: BuildModelInput = {
  id: 'synthetic-org/rule-guard',
  revision: REV,
  license: null,
  files: [
    { path: "it's weights Q4_K_M.gguf", size: SIZES[0] as number, sha256: sha(1) },
    { path: 'config.json', size: SIZES[1] as number, sha256: sha(2) },
    { path: 'model.safetensors', size: SIZES[2] as number, sha256: sha(3) },
  ],
  sources: [{ source: 'mirror-a', type: 'http' }],
};

const mcp = (name: string, args: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
});

describe('byte sizes: every user writes formatBytes', () => {
  it('binary units, labelled as such', () => {
    expect([0, 1023, 1024, 1536, 5 * 1024 * 1024, 42.5 * 1024 ** 3, 300 * 1024 ** 4].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.00 KiB',
      '1.50 KiB',
      '5.00 MiB',
      '42.5 GiB',
      '300 TiB',
    ]);
  });

  it('the site model page and MCP model details (node-server: apps/node-server/test/one-rule-users.test.ts)', async () => {
    const t = await createComposedTestHub({ models: [MODEL] });
    const page = (await request(t.hub, `/models/${MODEL.id}`, { headers: { accept: 'text/html' } })).text;
    const details = (await request(t.hub, '/mcp', mcp('model_details', { model_id: MODEL.id }))).text;
    for (const n of SIZES) expect(page, `site: ${n}`).toContain(formatBytes(n));
    expect(details).toContain(`3 files, ${formatBytes(SIZES.reduce((a, b) => a + b, 0))}`);
  });
});

describe('shell quoting: every user writes shellQuote', () => {
  it('the site model page and MCP get_download quote a path with a space and a quote the same way', async () => {
    const t = await createComposedTestHub({ models: [MODEL] });
    const path0 = MODEL.files[0]?.path as string;
    const quoted = shellQuote(path0);
    expect(quoted).toBe(`'it'\\''s weights Q4_K_M.gguf'`);
    const page = (await request(t.hub, `/models/${MODEL.id}`, { headers: { accept: 'text/html' } })).text;
    expect(page).toContain(quoted.replace(/'/g, '&#39;'));
    const download = (await request(t.hub, '/mcp', mcp('get_download', { model: MODEL.id, path: path0 }))).text;
    expect(download).toContain(JSON.stringify(`-o ${quoted}`).slice(1, -1));
  });
});

describe('recording a missing model id: every dialect records what recordMissing records', () => {
  const IDS = ['Synthetic-Owner/not-indexed-yet', 'api/looks-like-a-route', 'synthetic-owner/x'];
  const expected = () => {
    const log = new MemoryMissingLog();
    for (const id of IDS) recordMissing({ missing: log, defer: () => {}, log: silentLogger }, id);
    return log.list();
  };

  it('the model-host resolve 404, the OCI manifest 404, MCP model_details and the account request', async () => {
    const want = await expected();
    expect(want).toEqual(['Synthetic-Owner/not-indexed-yet', 'synthetic-owner/x']);
    const idp = await createTestIdentityProvider({ issuer: 'https://id.example.test', audience: 'hub-site' });
    const verifier = await createTokenVerifier({ publicKey: idp.publicKeyPem, issuer: 'https://id.example.test', audience: 'hub-site' });
    const token = await idp.sign({ sub: 'did:plc:synthetic-rule' }, { now: 1_700_000_000_000 });
    const users: Record<string, (hub: Awaited<ReturnType<typeof createComposedTestHub>>['hub'], id: string) => Promise<unknown>> = {
      'hf resolve': (hub, id) => request(hub, `/${id}/resolve/main/config.json`),
      'oci manifest': (hub, id) => request(hub, `/v2/${id.toLowerCase()}/manifests/latest`),
      'mcp model_details': (hub, id) => request(hub, '/mcp', mcp('model_details', { model_id: id })),
      'account request': (hub, id) =>
        request(hub, '/api/account/request', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: id }),
        }),
    };
    for (const [name, call] of Object.entries(users)) {
      const missing = new MemoryMissingLog();
      const accounts = { store: new MemoryAccountStore(), limiter: new TokenBucketLimiter({ burst: 100, perSecond: 1 }), verifier };
      const t = await createComposedTestHub({ models: [MODEL] }, { missing, accounts, now: () => 1_700_000_000_000 });
      for (const id of IDS) await call(t.hub, id);
      const got = (await missing.list()).map((id) => id.toLowerCase());
      // the OCI path is lower case by the registry's grammar
      expect(got, name).toEqual(want.map((id) => id.toLowerCase()));
    }
  });
});

describe('the IPFS gateway default: one value wherever a gateway is not configured', () => {
  it('the default ipfs source, the kind table, empty pins, the pins route and an ipfs redirect', async () => {
    expect(DEFAULT_SOURCES.find((s) => s.name === 'ipfs')?.url).toBe(DEFAULT_IPFS_GATEWAY);
    expect(SOURCE_KIND_INFO.ipfs.defaultUrl).toBe(DEFAULT_IPFS_GATEWAY);
    expect(emptyPins().gateway).toBe(DEFAULT_IPFS_GATEWAY);
    const pinned: BuildModelInput = { ...MODEL, sources: [{ source: 'ipfs', type: 'ipfs', root: 'bafysyntheticroot' }] };
    const t = await createComposedTestHub({
      models: [pinned],
      sources: [{ name: 'ipfs', display: 'IPFS', token: 'ipfs', kind: 'ipfs' }],
    });
    const pins = (await request(t.hub, '/api/hub/pins')).json() as { gateway: string };
    expect(pins.gateway).toBe(DEFAULT_IPFS_GATEWAY);
    const r = await request(t.hub, `/${MODEL.id}/resolve/main/config.json`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe(`${DEFAULT_IPFS_GATEWAY}/ipfs/bafysyntheticroot/config.json`);
  });
});
