import { describe, expect, it } from 'vitest';
import type { BuildModelInput } from '../build/builder.js';
import type { SignatureVerdict } from '../index/schemas.js';
import { createTestHub } from '../testing/fixture.js';
import { globMatches, PolicyConfigError, parsePolicy, policyRefusal, type ServePolicy } from './policy.js';

/** The serving policy's rule on its own (the dialects' refusals over HTTP: apps/node-server/test/signatures.test.ts). */

const verified: SignatureVerdict = {
  status: 'verified',
  method: 'sigstore',
  identity: 'a@example.org',
  issuer: 'https://issuer.example',
  covered: 2,
};
// SYNTHETIC models, with SYNTHETIC verdicts
const model = (id: string, extra: Partial<BuildModelInput>): BuildModelInput => ({
  id,
  revision: 'c'.repeat(40),
  files: [
    { path: 'config.json', size: 10, sha256: '1'.repeat(64) },
    { path: 'model.bin', size: 20, sha256: '2'.repeat(64) },
  ],
  sources: [{ source: 'mirror-a', type: 'http' }],
  ...extra,
});

const hub = await createTestHub({
  models: [
    model('org/signed', { signature: verified }),
    model('org/failed', {
      signature: { ...verified, status: 'failed', mismatched: ['model.bin'], reason: 'the signed manifest does not match the index' },
    }),
    model('org/scanned', { scan: { scansDone: true, filesWithIssues: [{ path: 'model.bin', level: 'suspicious' }] } }),
    model('other/unsigned', {}),
  ],
});
const m = (id: string) => hub.index.warm(id) ?? (undefined as never);

describe('the serving policy', () => {
  it('refuses every file of a failed signature, one file of a listed scan level, and nothing else', () => {
    const p: ServePolicy = { refuseFailedSignatures: true, refuseScanLevels: ['suspicious'] };
    expect(policyRefusal(p, m('org/failed'), { path: 'config.json' })?.rule).toBe('policy.refuseFailedSignatures');
    expect(policyRefusal(p, m('org/failed'))?.rule).toBe('policy.refuseFailedSignatures');
    expect(policyRefusal(p, m('org/scanned'), { path: 'model.bin' })?.message).toMatch(/refuseScanLevels.*model\.bin.*suspicious/);
    expect(policyRefusal(p, m('org/scanned'), { sha256: '2'.repeat(64) })?.rule).toBe('policy.refuseScanLevels');
    expect(policyRefusal(p, m('org/scanned'), { path: 'config.json' })).toBeUndefined();
    expect(policyRefusal(p, m('org/scanned'))).toBeUndefined();
    expect(policyRefusal({ refuseScanLevels: ['unsafe'] }, m('org/scanned'), { path: 'model.bin' })).toBeUndefined();
    expect(policyRefusal(p, m('org/signed'), { path: 'model.bin' })).toBeUndefined();
    expect(policyRefusal({}, m('org/failed'), { path: 'model.bin' })).toBeUndefined();
  });

  it('requireSignature binds an identity and issuer to the models its glob matches', () => {
    const rule = (identity: string, issuer = 'https://issuer.example') => ({ requireSignature: [{ models: 'org/*', identity, issuer }] });
    expect(policyRefusal(rule('a@example.org'), m('org/signed'))).toBeUndefined();
    expect(policyRefusal(rule('b@example.org'), m('org/signed'))?.message).toContain('has a verified signature by a@example.org');
    expect(policyRefusal(rule('a@example.org', 'https://other.example'), m('org/signed'))?.rule).toBe('policy.requireSignature[0]');
    expect(policyRefusal(rule('a@example.org'), m('org/scanned'))?.message).toContain('has none');
    expect(policyRefusal(rule('a@example.org'), m('org/failed'))?.message).toContain('whose status is failed');
    // another namespace is not touched
    expect(policyRefusal(rule('b@example.org'), m('other/unsigned'))).toBeUndefined();
  });

  it('globs: * within a name part, ** across, case-insensitive', () => {
    expect(globMatches('ibm-granite/*', 'ibm-granite/granite-3.3-8b-instruct')).toBe(true);
    expect(globMatches('ibm-granite/*', 'IBM-Granite/x')).toBe(true);
    expect(globMatches('ibm-granite/*', 'ibm-granite-fake/x')).toBe(false);
    expect(globMatches('*/granite-?', 'a/granite-3')).toBe(true);
    expect(globMatches('**', 'a/b')).toBe(true);
    expect(globMatches('a.b/*', 'aXb/c')).toBe(false);
  });

  it('config: every wrong key or value is one line naming it', () => {
    const bad: Array<[unknown, RegExp]> = [
      [[], /policy must be an object/],
      [{ refuseScanLevels: ['evil'] }, /policy\.refuseScanLevels must be a list of scan levels/],
      [{ refuseFailedSignatures: 'yes' }, /policy\.refuseFailedSignatures must be true or false/],
      [{ requireSignature: [{ models: 'a/*', identity: 'x' }] }, /policy\.requireSignature\[0\] needs models/],
      [{ requireSignatures: [] }, /policy\.requireSignatures is not a policy key/],
    ];
    for (const [value, message] of bad) {
      expect(() => parsePolicy(value)).toThrow(PolicyConfigError);
      expect(() => parsePolicy(value)).toThrow(message);
    }
    expect(parsePolicy({ refuseScanLevels: ['unsafe'], requireSignature: [{ models: 'a/*', identity: 'x', issuer: 'y' }] })).toEqual({
      refuseScanLevels: ['unsafe'],
      requireSignature: [{ models: 'a/*', identity: 'x', issuer: 'y' }],
    });
    expect(parsePolicy(undefined)).toEqual({});
  });
});
