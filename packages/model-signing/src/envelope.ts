import { createHash, type KeyObject, verify as verifyBytes, X509Certificate } from 'node:crypto';
import { bundleFromJSON } from '@sigstore/bundle';
import { Bundle, TrustedRoot } from '@sigstore/protobuf-specs';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import type { Trust } from './trust.js';

/**
 * The signature half of an OMS verdict: the Sigstore bundle's DSSE envelope checked for the bundle's signing method
 * (OMS spec v1.0 section 4.1 and 8.2), offline. Nothing of the payload is believed before this passes.
 */

export type SigningMethod = 'sigstore' | 'key' | 'certificate';

export interface SignedContent {
  method: SigningMethod;
  identity?: string;
  issuer?: string;
  signedAt?: string;
  payloadType: string;
  payload: Uint8Array;
}

/** The bundle does not verify: a bad shape, an untrusted key or chain, a log proof that fails, a bad signature. */
export class SignatureError extends Error {
  constructor(
    message: string,
    readonly method: SigningMethod | 'unknown',
  ) {
    super(message);
  }
}

interface RawEnvelope {
  payload: Buffer;
  payloadType: string;
  signature: Buffer;
}

/** DSSE's pre-authentication encoding (DSSE protocol v1). */
function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/** Python's repr of a bytes value: what v0.2.0's buggy PAE embedded (b'...' with escapes). */
function pyBytesRepr(b: Buffer): string {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const c of b) {
    if (c === 0x5c) out += '\\\\';
    else if (c === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return `${out}${quote}`;
}

/** v0.2.0's PAE (sign_sigstore_pb.pae_compat in the reference implementation), signed with SHA-256 whatever the key. */
function paeCompat(payloadType: string, payload: Buffer): Buffer {
  return Buffer.from(`DSSEV1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} ${pyBytesRepr(payload)}`, 'utf8');
}

/** The digest ECDSA uses for a curve, as the reference implementation picks it (get_ec_key_hash). */
function hashFor(key: KeyObject): string | null {
  if (key.asymmetricKeyType === 'ed25519') return null;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === 'secp384r1' ? 'sha384' : curve === 'secp521r1' ? 'sha512' : 'sha256';
}

function checkSignature(key: KeyObject, env: RawEnvelope): boolean {
  const alg = hashFor(key);
  try {
    if (verifyBytes(alg, pae(env.payloadType, env.payload), key, env.signature)) return true;
    return alg !== null && verifyBytes('sha256', paeCompat(env.payloadType, env.payload), key, env.signature);
  } catch {
    return false;
  }
}

function rawEnvelope(json: Record<string, unknown>): RawEnvelope {
  const env = json.dsseEnvelope as { payload?: unknown; payloadType?: unknown; signatures?: Array<{ sig?: unknown }> } | undefined;
  const sig = env?.signatures?.[0]?.sig;
  if (!env || typeof env.payload !== 'string' || typeof env.payloadType !== 'string' || typeof sig !== 'string')
    throw new SignatureError('the bundle has no DSSE envelope with a signature', 'unknown');
  if (env.signatures && env.signatures.length !== 1)
    throw new SignatureError('the DSSE envelope must carry exactly one signature', 'unknown');
  return { payload: Buffer.from(env.payload, 'base64'), payloadType: env.payloadType, signature: Buffer.from(sig, 'base64') };
}

/** The PEM form the reference implementation hashes for a key's `hint` (SubjectPublicKeyInfo, PEM). */
export function keyHint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'pem' }) as string)
    .digest('hex');
}

function verifyKey(json: Record<string, unknown>, material: Record<string, unknown>, trust: Trust): SignedContent {
  const env = rawEnvelope(json);
  const id = material.publicKey as { hint?: unknown; rawBytes?: unknown };
  const raw = typeof id.rawBytes === 'string' ? Buffer.from(id.rawBytes, 'base64') : undefined;
  const key = trust.keys.find((k) => {
    if (typeof id.hint === 'string' && id.hint !== '') return keyHint(k.key) === id.hint.toLowerCase();
    if (!raw) return false;
    const der = k.key.export({ type: 'spki', format: 'der' });
    return der.equals(raw) || Buffer.from(k.key.export({ type: 'spki', format: 'pem' }) as string).equals(raw);
  });
  if (!key) throw new SignatureError('the bundle names a public key the operator has not configured', 'key');
  if (!checkSignature(key.key, env)) throw new SignatureError('the DSSE signature does not verify with the configured key', 'key');
  return { method: 'key', identity: key.name, payloadType: env.payloadType, payload: env.payload };
}

function verifyCertificateChain(json: Record<string, unknown>, material: Record<string, unknown>, trust: Trust): SignedContent {
  const env = rawEnvelope(json);
  const list = (material.x509CertificateChain as { certificates?: Array<{ rawBytes?: unknown }> }).certificates ?? [];
  let certs: X509Certificate[];
  try {
    certs = list.map((c) => new X509Certificate(Buffer.from(String(c.rawBytes), 'base64')));
  } catch {
    throw new SignatureError('the certificate chain does not parse', 'certificate');
  }
  const leaf = certs[0];
  if (!leaf) throw new SignatureError('the certificate chain is empty', 'certificate');
  // As the reference verifier: every certificate of the path is checked at the leaf's notBefore (the latest moment
  // the signature can have been made), and the path must end at a CA the operator configured.
  const at = new Date(leaf.validFrom).getTime();
  const valid = (c: X509Certificate) => new Date(c.validFrom).getTime() <= at && at <= new Date(c.validTo).getTime();
  let current = leaf;
  let anchor: string | undefined;
  for (let depth = 0; depth < 10 && anchor === undefined; depth++) {
    if (!valid(current))
      throw new SignatureError(`certificate ${current.subject.replace(/\n/g, ', ')} is not valid at the signing time`, 'certificate');
    const ca = trust.certificateAuthorities.find((a) => current.checkIssued(a.cert) && current.verify(a.cert.publicKey) && valid(a.cert));
    if (ca) {
      anchor = ca.name;
      break;
    }
    const next = certs.find((c) => c !== current && current.checkIssued(c) && current.verify(c.publicKey));
    if (!next) throw new SignatureError('the certificate chain does not lead to a configured certificate authority', 'certificate');
    current = next;
  }
  if (anchor === undefined) throw new SignatureError('the certificate chain is too long', 'certificate');
  if (!checkSignature(leaf.publicKey, env))
    throw new SignatureError("the DSSE signature does not verify with the leaf certificate's key", 'certificate');
  const identity = leaf.subjectAltName?.replace(/^(?:email|DNS|URI):/, '') ?? /CN=([^\n]+)/.exec(leaf.subject)?.[1];
  return { method: 'certificate', ...(identity ? { identity } : {}), issuer: anchor, payloadType: env.payloadType, payload: env.payload };
}

function verifySigstore(json: Record<string, unknown>, trust: Trust): SignedContent {
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    bundle = bundleFromJSON(json);
  } catch (err) {
    throw new SignatureError(`the Sigstore bundle is not valid: ${(err as Error).message}`, 'sigstore');
  }
  if (bundle.content.$case !== 'dsseEnvelope') throw new SignatureError('an OMS bundle signs a DSSE envelope, not a message', 'sigstore');
  let signer: ReturnType<Verifier['verify']>;
  try {
    const material = toTrustMaterial(TrustedRoot.fromJSON(trust.trustedRoot));
    signer = new Verifier(material).verify(toSignedEntity(bundle));
  } catch (err) {
    throw new SignatureError(`the Sigstore bundle does not verify against the trusted root: ${(err as Error).message}`, 'sigstore');
  }
  const env = bundle.content.dsseEnvelope;
  const times = bundle.verificationMaterial.tlogEntries.map((e) => Number(e.integratedTime)).filter((t) => t > 0);
  return {
    method: 'sigstore',
    ...(signer.identity?.subjectAlternativeName ? { identity: signer.identity.subjectAlternativeName } : {}),
    ...(signer.identity?.extensions?.issuer ? { issuer: signer.identity.extensions.issuer } : {}),
    ...(times.length ? { signedAt: new Date(Math.min(...times) * 1000).toISOString() } : {}),
    payloadType: env.payloadType,
    payload: Buffer.from(env.payload),
  };
}

/** Checks the bundle's signature for its method; throws {@link SignatureError} when it does not verify. */
export function verifyEnvelope(bundleBytes: Uint8Array, trust: Trust): SignedContent {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bundleBytes).toString('utf8'));
    Bundle.fromJSON(json);
  } catch {
    throw new SignatureError('model.sig is not a Sigstore bundle (JSON)', 'unknown');
  }
  if (typeof json !== 'object' || json === null) throw new SignatureError('model.sig is not a Sigstore bundle (JSON)', 'unknown');
  const obj = json as Record<string, unknown>;
  if (typeof obj.mediaType !== 'string' || !obj.mediaType.startsWith('application/vnd.dev.sigstore.bundle'))
    throw new SignatureError('the bundle has no Sigstore bundle media type', 'unknown');
  const material = obj.verificationMaterial as Record<string, unknown> | undefined;
  if (!material) throw new SignatureError('the bundle has no verification material', 'unknown');
  if (material.publicKey) return verifyKey(obj, material, trust);
  // A chain with log entries is an older Sigstore bundle (v0.1/v0.2 carried Fulcio's chain); OMS's `certificate`
  // method carries none (or an empty list).
  const logged = Array.isArray(material.tlogEntries) && material.tlogEntries.length > 0;
  if (material.x509CertificateChain) return logged ? verifySigstore(obj, trust) : verifyCertificateChain(obj, material, trust);
  if (material.certificate) return verifySigstore(obj, trust);
  throw new SignatureError('the verification material names no key, certificate or chain', 'unknown');
}
