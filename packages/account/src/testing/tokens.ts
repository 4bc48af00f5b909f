import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/** A throwaway ES256 identity provider for tests: a fresh key pair and a signer. */
export interface TestIdentityProvider {
  /** PEM SPKI of the public key, as the hub config holds it. */
  publicKeyPem: string;
  publicJwk: JWK;
  /** Sign a token for `sub`; by default issued now (ms `now`), valid one hour (`expiresInSeconds: null`: no `exp`). */
  sign(
    claims: JWTPayload & { sub?: string },
    options?: { now?: number; expiresInSeconds?: number | null; header?: Record<string, unknown> },
  ): Promise<string>;
}

export async function createTestIdentityProvider(defaults: { issuer?: string; audience?: string } = {}): Promise<TestIdentityProvider> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicKeyPem = await exportSPKI(publicKey);
  const publicJwk = await exportJWK(publicKey);
  return {
    publicKeyPem,
    publicJwk,
    async sign(claims, options = {}) {
      const now = Math.floor((options.now ?? Date.now()) / 1000);
      const payload: JWTPayload = { iat: now, ...claims };
      if (options.expiresInSeconds !== null && payload.exp === undefined) payload.exp = now + (options.expiresInSeconds ?? 3600);
      if (defaults.issuer && payload.iss === undefined) payload.iss = defaults.issuer;
      if (defaults.audience && payload.aud === undefined) payload.aud = defaults.audience;
      return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...options.header }).sign(privateKey);
    },
  };
}
