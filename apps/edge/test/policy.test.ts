/**
 * The serving policy (design 11.2) at the edge: the same core rule as node-server, from the POLICY variable, under
 * workerd. The demo models carry no model.sig, so a requireSignature rule on one of them refuses every file of it;
 * the other model is untouched. (The verdicts themselves: apps/node-server/test/signatures.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEdge, startEdge } from './harness.js';

const POLICY = {
  // SYNTHETIC identity and issuer: nothing in the demo index is signed by them
  requireSignature: [{ models: 'demo/tiny-bert-*', identity: 'release@example.org', issuer: 'https://issuer.example' }],
};

let edge: RunningEdge;
beforeAll(async () => {
  edge = await startEdge({ bindings: { POLICY: JSON.stringify(POLICY) } });
}, 120_000);
afterAll(async () => {
  await edge?.close();
});

describe('the edge refuses what the policy refuses, in each group’s shape, and never redirects it', () => {
  it('resolve and SHA256SUMS: 403 {error} with X-Error-Code PolicyRefused naming the rule', async () => {
    for (const p of ['config.json', 'SHA256SUMS']) {
      const res = await fetch(`${edge.url}/demo/tiny-bert-synthetic/resolve/main/${p}`, { redirect: 'manual' });
      expect(res.status, p).toBe(403);
      expect(res.headers.get('x-error-code')).toBe('PolicyRefused');
      expect(res.headers.get('location')).toBeNull();
      expect((await res.json()).error).toMatch(/^Refused by policy\.requireSignature\[0\]: .*demo\/tiny-bert-\*.*has none\.$/);
    }
  });

  it('OCI manifest: 403 in the registry shape', async () => {
    const res = await fetch(`${edge.url}/v2/demo/tiny-bert-synthetic/manifests/latest`);
    expect(res.status).toBe(403);
    expect((await res.json()).errors[0]).toMatchObject({ code: 'PolicyRefused' });
  });

  it('a model the policy does not name is untouched', async () => {
    const res = await fetch(`${edge.url}/demo/tiny-llama-2-GGUF/resolve/main/README.md`, { redirect: 'manual' });
    expect(res.status).not.toBe(403);
    expect((await fetch(`${edge.url}/api/models/demo/tiny-bert-synthetic`)).status).toBe(200);
  });
});
