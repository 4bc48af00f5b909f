import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { syntheticSigner } from './testing/synthetic-bundle.js';
import { loadTrust, type SigningConfig } from './trust.js';
import { verifyModelSignature } from './verify.js';

/**
 * Real bundles only (fixtures/model-signing/README.md): the reference implementation's cross-version test models,
 * signed keyless by an IBM identity through IBM's OIDC issuer and logged in the public Rekor, and the OMS spec's
 * test vectors. The index is the model directory's own files with their SHA-256, as the index run would hold them.
 */

const FIX = fileURLToPath(new URL('../../../fixtures/model-signing/', import.meta.url));
const MT = `${FIX}model-transparency/`;
const IDENTITY = 'stefanb@us.ibm.com';
const ISSUER = 'https://sigstore.verify.ibm.com/oauth2';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** The index of a model directory: every file with its SHA-256 (model.sig included, as a revision's tree lists it). */
function indexOf(dir: string) {
  return readdirSync(dir).map((name) => ({ path: name, sha256: sha(readFileSync(`${dir}/${name}`)) }));
}
const bundle = (dir: string) => readFileSync(`${dir}/model.sig`);
const trust = loadTrust();

describe('OMS model.sig checked from the index without the files', () => {
  it('a real keyless bundle over an index whose tree lists its files verifies, naming identity, issuer and time', () => {
    const dir = `${MT}v1.1.0-sigstore`;
    const v = verifyModelSignature(bundle(dir), indexOf(dir), trust);
    expect(v).toMatchObject({
      status: 'verified',
      method: 'sigstore',
      identity: IDENTITY,
      issuer: ISSUER,
      covered: 2,
      bundle: 'model.sig',
    });
    expect(v.signed_at).toMatch(/^2025-\d\d-\d\dT/);
    expect(v.unsigned).toBeUndefined();
  });

  it('older forms verify too: v1.0.1 and v0.3.1 keyless (ignore-me is not in ignore_paths there, so it is unsigned)', () => {
    for (const version of ['v1.0.1-sigstore', 'v0.3.1-sigstore']) {
      const dir = `${MT}${version}`;
      const files = indexOf(dir).filter((f) => f.path !== 'ignore-me');
      expect(verifyModelSignature(bundle(dir), files, trust), version).toMatchObject({
        status: 'verified',
        identity: IDENTITY,
        issuer: ISSUER,
        covered: 2,
      });
    }
    const dir = `${MT}v1.0.1-sigstore`;
    expect(verifyModelSignature(bundle(dir), indexOf(dir), trust)).toMatchObject({ status: 'incomplete', unsigned: ['ignore-me'] });
  });

  it('one mismatched SHA-256 fails with that path', () => {
    const dir = `${MT}v1.1.0-sigstore`;
    const files = indexOf(dir).map((f) => (f.path === 'signme-2' ? { ...f, sha256: 'ab'.repeat(32) } : f));
    const v = verifyModelSignature(bundle(dir), files, trust);
    expect(v).toMatchObject({ status: 'failed', identity: IDENTITY, mismatched: ['signme-2'], covered: 1 });
  });

  it('an indexed file the bundle does not list is incomplete with it in unsigned; a listed file the index lacks fails', () => {
    const dir = `${MT}v1.1.0-sigstore`;
    const more = [
      ...indexOf(dir),
      { path: 'extra/weights.safetensors', sha256: 'cd'.repeat(32) },
      { path: '.gitattributes', sha256: 'ef'.repeat(32) },
    ];
    expect(verifyModelSignature(bundle(dir), more, trust)).toMatchObject({
      status: 'incomplete',
      unsigned: ['extra/weights.safetensors'],
      covered: 2,
    });
    const fewer = indexOf(dir).filter((f) => f.path !== 'signme-1');
    expect(verifyModelSignature(bundle(dir), fewer, trust)).toMatchObject({ status: 'failed', missing: ['signme-1'] });
  });

  it('a flipped bit in the signature or in the statement fails', () => {
    const dir = `${MT}v1.1.0-sigstore`;
    const json = JSON.parse(bundle(dir).toString('utf8'));
    const flip = (b64: string, at: number) => {
      const b = Buffer.from(b64, 'base64');
      b[at] = (b[at] as number) ^ 0x01;
      return b.toString('base64');
    };
    const sig = structuredClone(json);
    sig.dsseEnvelope.signatures[0].sig = flip(sig.dsseEnvelope.signatures[0].sig, 20);
    const stmt = structuredClone(json);
    stmt.dsseEnvelope.payload = flip(stmt.dsseEnvelope.payload, 300);
    for (const [what, b] of [
      ['signature', sig],
      ['statement', stmt],
    ] as const) {
      const v = verifyModelSignature(Buffer.from(JSON.stringify(b)), indexOf(dir), trust);
      expect(v.status, what).toBe('failed');
      expect(v.identity, what).toBeUndefined();
      expect(v.reason, what).toMatch(/does not verify/);
    }
  });

  it('the same bundle copied into another namespace verifies and names the original identity', () => {
    // The verdict depends only on the bundle and the files' hashes: a copy of the repo under another owner shows
    // IBM's identity, which is exactly why a policy rule ties identities to namespaces (tested in the hub).
    const dir = `${MT}v1.1.0-sigstore`;
    const copied = verifyModelSignature(bundle(dir), indexOf(dir), trust);
    expect(copied).toMatchObject({ status: 'verified', identity: IDENTITY, issuer: ISSUER });
  });

  it('an untrusted root refuses a keyless bundle (an operator-replaced trusted root with no Fulcio CA)', () => {
    const dir = `${MT}v1.1.0-sigstore`;
    const empty = { ...loadTrust(), trustedRoot: { ...(trust.trustedRoot as object), certificateAuthorities: [] } };
    expect(verifyModelSignature(bundle(dir), indexOf(dir), empty)).toMatchObject({ status: 'failed', method: 'sigstore' });
  });

  it('the OMS spec test vectors: keyless, key and certificate bundles verify against their keys', () => {
    const keys: SigningConfig = {
      keys: [{ name: 'model-transparency test key', publicKey: `${MT}keys/signing-key-pub.pem` }],
      certificateAuthorities: [{ name: 'model-transparency test CA', certificate: `${MT}keys/ca-cert.pem` }],
    };
    const withKeys = loadTrust(keys);
    const dir = `${MT}v1.1.0-elliptic-key`;
    const files = indexOf(dir);
    const vec = (name: string) => readFileSync(`${FIX}oms-spec-v1.0/${name}.bundle.json`);
    expect(verifyModelSignature(vec('valid/sigstore'), indexOf(`${MT}v1.1.0-sigstore`), trust)).toMatchObject({
      status: 'verified',
      identity: IDENTITY,
    });
    expect(verifyModelSignature(vec('valid/key'), files, withKeys)).toMatchObject({
      status: 'verified',
      method: 'key',
      identity: 'model-transparency test key',
    });
    expect(verifyModelSignature(vec('valid/certificate'), files, withKeys)).toMatchObject({
      status: 'verified',
      method: 'certificate',
      issuer: 'model-transparency test CA',
    });
    // without the operator's key or CA they fail, and say why
    expect(verifyModelSignature(vec('valid/key'), files, trust)).toMatchObject({ status: 'failed', method: 'key' });
    expect(verifyModelSignature(vec('valid/certificate'), files, trust)).toMatchObject({ status: 'failed', method: 'certificate' });
    expect(verifyModelSignature(vec('invalid-payload/wrong-predicate'), files, withKeys)).toMatchObject({ status: 'failed' });
    expect(verifyModelSignature(vec('invalid/missing-tlog-entries'), files, withKeys).status).toBe('failed');
  });

  it('the v0.2 form (file digests in subject, the compat PAE) verifies with its certificate chain', () => {
    const dir = `${MT}v0.2.0-certificate`;
    const withCa = loadTrust({ certificateAuthorities: [{ name: 'test CA', certificate: `${MT}keys/ca-cert.pem` }] });
    expect(verifyModelSignature(bundle(dir), indexOf(dir), withCa)).toMatchObject({
      status: 'verified',
      method: 'certificate',
      covered: 2,
    });
  });

  it('a shards manifest or a non-SHA-256 hash is needs-bytes, with the identity still shown', () => {
    const signer = syntheticSigner();
    const k = loadTrust({ keys: [{ name: 'synthetic', publicKey: signer.pem }] });
    const d = 'aa'.repeat(32);
    const shards = signer.bundle({ method: 'shards', hash_type: 'sha256', shard_size: 1000, allow_symlinks: false }, [
      { name: 'w.bin:0:1000', algorithm: 'sha256', digest: d },
    ]);
    expect(verifyModelSignature(shards, [{ path: 'w.bin', sha256: d }], k)).toMatchObject({
      status: 'needs-bytes',
      method: 'key',
      identity: 'synthetic',
    });
    const blake = signer.bundle({ method: 'files', hash_type: 'blake3', allow_symlinks: false }, [
      { name: 'w.bin', algorithm: 'blake3', digest: d },
    ]);
    expect(verifyModelSignature(blake, [{ path: 'w.bin', sha256: d }], k)).toMatchObject({ status: 'needs-bytes' });
    const files = signer.bundle({ method: 'files', hash_type: 'sha256', allow_symlinks: false }, [
      { name: 'w.bin', algorithm: 'sha256', digest: d },
    ]);
    expect(verifyModelSignature(files, [{ path: 'w.bin', sha256: d }], k)).toMatchObject({ status: 'verified', covered: 1 });
    // a validly signed statement whose subject is not the SHA-256 of its own resources is refused
    const badRoot = signer.bundle(
      { method: 'files', hash_type: 'sha256', allow_symlinks: false },
      [{ name: 'w.bin', algorithm: 'sha256', digest: d }],
      'bb'.repeat(32),
    );
    expect(verifyModelSignature(badRoot, [{ path: 'w.bin', sha256: d }], k)).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/root digest/),
    });
  });
});
