import type { SignatureVerdict } from '@hub/core-index';
import { compareWithIndex, type IndexedFile } from './compare.js';
import { SignatureError, verifyEnvelope } from './envelope.js';
import { parseStatement, StatementError } from './statement.js';
import type { Trust } from './trust.js';

/** The file name OMS signers write by default, and the one the index run looks for at a revision's root. */
export const SIGNATURE_FILE = 'model.sig';

/** Who signed a bundle, as every verdict on it shows: the method, the identity and issuer, when, and the bundle's path. */
type Signer = Pick<SignatureVerdict, 'method' | 'identity' | 'issuer' | 'signed_at' | 'bundle'>;

/**
 * The first steps of every verdict on an OMS bundle (from the index's hashes here, from the bytes in bytes.ts): the
 * bundle's signature for its method (envelope.ts), offline; who signed; the in-toto statement parsed (statement.ts).
 * A signature or a statement that does not verify is the `failed` verdict, with its reason.
 */
export function openSignedStatement(
  bundleBytes: Uint8Array,
  trust: Trust,
  bundlePath: string,
): { verdict: SignatureVerdict } | { who: Signer; manifest: ReturnType<typeof parseStatement> } {
  let signed: ReturnType<typeof verifyEnvelope>;
  try {
    signed = verifyEnvelope(bundleBytes, trust);
  } catch (err) {
    const method = err instanceof SignatureError ? err.method : 'unknown';
    return { verdict: { status: 'failed', method, bundle: bundlePath, covered: 0, reason: (err as Error).message } };
  }
  const who = {
    method: signed.method,
    ...(signed.identity ? { identity: signed.identity } : {}),
    ...(signed.issuer ? { issuer: signed.issuer } : {}),
    ...(signed.signedAt ? { signed_at: signed.signedAt } : {}),
    bundle: bundlePath,
  };
  try {
    return { who, manifest: parseStatement(signed.payloadType, signed.payload) };
  } catch (err) {
    if (!(err instanceof StatementError)) throw err;
    return {
      verdict: { status: 'failed', ...who, covered: 0, reason: `the signed statement is not a valid OMS statement: ${err.message}` },
    };
  }
}

/**
 * The verdict on one revision's OMS bundle, from the bundle's bytes and the index's per-file SHA-256 only:
 * 1. the bundle's signature for its method (envelope.ts), offline;
 * 2. the in-toto statement and its root digest (statement.ts);
 * 3. the statement's resources against the index's files, after the default exclusions, `ignore_paths` and the
 *    bundle itself (compare.ts).
 * A signature or statement that does not verify is `failed` with its reason; a manifest of shards or of another hash
 * than SHA-256 is `needs-bytes` (the identity is still shown: the signature itself verified).
 */
export function verifyModelSignature(
  bundleBytes: Uint8Array,
  files: readonly IndexedFile[],
  trust: Trust,
  bundlePath = SIGNATURE_FILE,
): SignatureVerdict {
  const opened = openSignedStatement(bundleBytes, trust, bundlePath);
  if ('verdict' in opened) return opened.verdict;
  const { who, manifest } = opened;
  if (manifest.method !== 'files')
    return {
      status: 'needs-bytes',
      ...who,
      covered: 0,
      reason: `serialization method ${manifest.method} signs byte ranges, which only the bytes can check`,
    };
  const other = manifest.resources.find((r) => r.algorithm !== 'sha256');
  if (manifest.hashType !== 'sha256' || other)
    return {
      status: 'needs-bytes',
      ...who,
      covered: 0,
      reason: `hash ${other?.algorithm ?? manifest.hashType} is not the index's SHA-256`,
    };
  const c = compareWithIndex(manifest, files, bundlePath);
  const failed = c.mismatched.length > 0 || c.missing.length > 0;
  const status = failed ? 'failed' : c.unsigned.length > 0 ? 'incomplete' : 'verified';
  return {
    status,
    ...who,
    covered: c.covered,
    ...(c.unsigned.length ? { unsigned: c.unsigned } : {}),
    ...(c.mismatched.length ? { mismatched: c.mismatched } : {}),
    ...(c.missing.length ? { missing: c.missing } : {}),
    ...(failed ? { reason: 'the signed manifest does not match the index' } : {}),
  };
}
