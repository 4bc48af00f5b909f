import { type RateLimiter, TokenBucketLimiter, type TokenBucketOptions } from './limiter.js';
import type { AccountServices } from './routes.js';
import type { AccountStore } from './store.js';
import { type AccountKeyConfig, createTokenVerifier, type VerifierOptions } from './verify.js';

/** The `account` block of the hub config (design section 8). */
export interface AccountConfig extends AccountKeyConfig {
  /** The site origin that may call /api/account/* from a browser (CORS with credentials). */
  siteOrigin?: string;
  /** Write limit per account; default burst 20, 1 per second. */
  writes?: TokenBucketOptions;
}

/**
 * Build the `accounts` deps from the config block. Without `publicKey` (or without the block) the
 * services have no verifier: the deployment has no sign-in keys and the routes answer 503.
 * A key that cannot be used throws `AccountConfigError` naming the fix.
 */
export async function createAccountServices(
  config: Partial<AccountConfig> | undefined,
  store: AccountStore,
  options: { limiter?: RateLimiter; verifier?: VerifierOptions } = {},
): Promise<AccountServices> {
  const limiter = options.limiter ?? new TokenBucketLimiter(config?.writes);
  const hasKey = config?.publicKey !== undefined && config.publicKey !== null && config.publicKey !== '';
  if (!hasKey) return { store, limiter };
  const verifier = await createTokenVerifier(config as AccountKeyConfig, options.verifier);
  return { store, limiter, verifier };
}
