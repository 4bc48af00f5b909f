import type { CryptoKey, createLocalJWKSet, JWK } from 'jose';

/** jose, imported when a verifier is made (a hub without sign-in keys never loads it; docs/decisions/scale-and-speed.md). */
type Jose = typeof import('jose');

/**
 * Verification of account tokens (spec: Authentication, "account token"): a JWT issued by the
 * identity provider to the person signed in on the site, signed ES256, checked against the
 * configured public key. Only ES256 is accepted; `exp` and `sub` are required; `iss`/`aud` are
 * checked when configured; `exp`/`nbf` allow a small clock skew.
 */

/** The `account` block of the hub config (design section 8), minus `siteOrigin`. */
export interface AccountKeyConfig {
  /** PEM SPKI (`-----BEGIN PUBLIC KEY-----`), a JWK (object or JSON text), or a JWK set `{keys: [...]}`. */
  publicKey: string | Record<string, unknown>;
  issuer?: string | string[];
  audience?: string | string[];
}

export interface VerifierOptions {
  /** Clock skew allowed on `exp` and `nbf`, in seconds. Default 30. */
  clockSkewSeconds?: number;
  /** Tokens longer than this are refused before parsing. Default 8192 characters. */
  maxTokenLength?: number;
}

export type TokenFailure =
  | 'missing'
  | 'too-large'
  | 'malformed'
  | 'unsigned'
  | 'algorithm'
  | 'signature'
  | 'expired'
  | 'not-yet-valid'
  | 'issuer'
  | 'audience'
  | 'claims'
  | 'subject';

export type VerifyResult = { ok: true; did: string } | { ok: false; reason: TokenFailure; message: string };

export interface TokenVerifier {
  /** Verify a bearer token at time `now` (ms since the epoch). Never throws for a bad token. */
  verify(token: string, now: number): Promise<VerifyResult>;
}

export class AccountConfigError extends Error {}

export const DEFAULT_CLOCK_SKEW_SECONDS = 30;
export const DEFAULT_MAX_TOKEN_LENGTH = 8192;

/** `did:<method>:<method-specific id>` (W3C DID syntax, without path, query or fragment). */
const DID = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/;
const MAX_DID_LENGTH = 512;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function isDid(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_DID_LENGTH && DID.test(value);
}

type KeyInput = CryptoKey | ReturnType<typeof createLocalJWKSet>;

function publicEcJwk(jwk: Record<string, unknown>, where: string): JWK {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new AccountConfigError(`${where} must be an EC P-256 public key (kty "EC", crv "P-256", x, y) for ES256.`);
  }
  if ('d' in jwk) {
    throw new AccountConfigError(`${where} holds a private key ("d"); configure only the public half of the identity provider's key.`);
  }
  if (jwk.alg !== undefined && jwk.alg !== 'ES256')
    throw new AccountConfigError(`${where} has alg ${String(jwk.alg)}; account tokens are ES256.`);
  const out: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, alg: 'ES256' };
  if (typeof jwk.kid === 'string') out.kid = jwk.kid;
  return out;
}

async function importKey(jose: Jose, publicKey: AccountKeyConfig['publicKey']): Promise<KeyInput> {
  let value: unknown = publicKey;
  if (typeof value === 'string') {
    const s = value.trim();
    if (s.startsWith('-----BEGIN PUBLIC KEY-----')) {
      try {
        return await jose.importSPKI(s, 'ES256');
      } catch (e) {
        throw new AccountConfigError(`account.publicKey is not a P-256 public key in PEM SPKI form: ${(e as Error).message}`);
      }
    }
    if (s.startsWith('-----BEGIN')) {
      throw new AccountConfigError(
        'account.publicKey must be a PUBLIC KEY (SPKI) PEM or a JWK; private keys and certificates are refused.',
      );
    }
    try {
      value = JSON.parse(s);
    } catch {
      throw new AccountConfigError('account.publicKey must be a PEM "-----BEGIN PUBLIC KEY-----" block or a JWK (JSON object).');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new AccountConfigError('account.publicKey must be a PEM "-----BEGIN PUBLIC KEY-----" block or a JWK (JSON object).');
  }
  const obj = value as Record<string, unknown>;
  if (Array.isArray(obj.keys)) {
    const keys = obj.keys.map((k, i) => publicEcJwk((k ?? {}) as Record<string, unknown>, `account.publicKey.keys[${i}]`));
    if (keys.length === 0) throw new AccountConfigError("account.publicKey.keys is empty; add the identity provider's ES256 public key.");
    return jose.createLocalJWKSet({ keys });
  }
  const jwk = publicEcJwk(obj, 'account.publicKey');
  try {
    return (await jose.importJWK(jwk, 'ES256')) as CryptoKey;
  } catch (e) {
    throw new AccountConfigError(`account.publicKey is not a usable P-256 key: ${(e as Error).message}`);
  }
}

function listOf(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const arr = (Array.isArray(v) ? v : [v]).filter((s) => typeof s === 'string' && s !== '');
  return arr.length ? arr : undefined;
}

const fail = (reason: TokenFailure, message: string): VerifyResult => ({ ok: false, reason, message });

/**
 * Import the configured key once and return a verifier. Throws {@link AccountConfigError} (naming the
 * fix) when the key cannot be used, so a misconfigured deployment fails at start, not per request.
 */
export async function createTokenVerifier(config: AccountKeyConfig, options: VerifierOptions = {}): Promise<TokenVerifier> {
  if (!config || config.publicKey === undefined || config.publicKey === null || config.publicKey === '') {
    throw new AccountConfigError("account.publicKey is missing; set it to the identity provider's ES256 public key (PEM or JWK).");
  }
  const jose = await import('jose');
  const key = await importKey(jose, config.publicKey);
  const issuer = listOf(config.issuer);
  const audience = listOf(config.audience);
  const skew = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  const maxLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;

  return {
    async verify(token: string, now: number): Promise<VerifyResult> {
      if (!token) return fail('missing', 'Sign in on the site and send the account token as Authorization: Bearer <token>.');
      if (token.length > maxLength) {
        return fail(
          'too-large',
          `The account token is longer than ${maxLength} characters; send the token the identity provider issued, nothing else.`,
        );
      }
      if (!COMPACT_JWS.test(token)) {
        return fail('malformed', 'The account token is not a signed JWT (three base64url parts); sign in again on the site.');
      }
      let alg: unknown;
      try {
        alg = jose.decodeProtectedHeader(token).alg;
      } catch {
        return fail('malformed', 'The account token header cannot be decoded; sign in again on the site.');
      }
      if (alg === 'none' || token.endsWith('.')) {
        return fail('unsigned', 'The account token is unsigned; only ES256 tokens from the identity provider are accepted.');
      }
      if (alg !== 'ES256') {
        return fail(
          'algorithm',
          `The account token is signed with ${typeof alg === 'string' ? alg.slice(0, 20) : 'an unknown algorithm'}; only ES256 tokens from the identity provider are accepted.`,
        );
      }
      try {
        const { payload } = await jose.jwtVerify(token, key as CryptoKey, {
          algorithms: ['ES256'],
          issuer,
          audience,
          clockTolerance: skew,
          currentDate: new Date(now),
          requiredClaims: ['sub', 'exp'],
        });
        if (!isDid(payload.sub)) {
          return fail(
            'subject',
            'The account token subject (sub) is not a DID (did:method:id); ask the identity provider for a DID-bound token.',
          );
        }
        return { ok: true, did: payload.sub };
      } catch (e) {
        return mapError(jose.errors, e);
      }
    },
  };
}

function mapError(errors: Jose['errors'], e: unknown): VerifyResult {
  if (e instanceof errors.JWTExpired) return fail('expired', 'The account token has expired; sign in again on the site for a fresh one.');
  if (e instanceof errors.JWTClaimValidationFailed) {
    switch (e.claim) {
      case 'nbf':
        return fail(
          'not-yet-valid',
          'The account token is not valid yet (nbf); check the clock of the identity provider, or sign in again.',
        );
      case 'iss':
        return fail('issuer', 'The account token was issued by another issuer; sign in through the identity provider this hub trusts.');
      case 'aud':
        return fail('audience', "The account token is for another audience; sign in on this hub's site to get a token for it.");
      case 'exp':
        return fail('claims', 'The account token has no valid expiry (exp); the identity provider must issue tokens that expire.');
      case 'sub':
        return fail('subject', 'The account token has no subject (sub); the identity provider must issue DID-bound tokens.');
      default:
        return fail('claims', 'The account token claims are not valid; sign in again on the site.');
    }
  }
  if (
    e instanceof errors.JWSSignatureVerificationFailed ||
    e instanceof errors.JWKSNoMatchingKey ||
    e instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return fail('signature', "The account token signature does not match this hub's sign-in key; sign in again on the site.");
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return fail('algorithm', 'Only ES256 account tokens are accepted; sign in again on the site.');
  return fail('malformed', 'The account token is not a valid JWT; sign in again on the site.');
}
