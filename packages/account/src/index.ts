export {
  DEFAULT_WRITE_BURST,
  DEFAULT_WRITES_PER_SECOND,
  type RateLimiter,
  type TakeResult,
  TokenBucketLimiter,
  type TokenBucketOptions,
} from './limiter.js';
export {
  type AccountDeps,
  type AccountServices,
  accountRoutes,
  isWallet,
  MAX_ACCOUNT_BODY_BYTES,
  MAX_REQUESTS_PER_ACCOUNT,
  MAX_SAVED,
  MAX_WALLET_LENGTH,
} from './routes.js';
export { ACCOUNT_SCHEMA, ACCOUNT_SQL } from './schema.js';
export { type AccountConfig, createAccountServices } from './services.js';
export { type AccountRecord, type AccountStore, isoTime, MemoryAccountStore, modelKey, type RequestOutcome } from './store.js';
export {
  AccountConfigError,
  type AccountKeyConfig,
  createTokenVerifier,
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_MAX_TOKEN_LENGTH,
  isDid,
  type TokenFailure,
  type TokenVerifier,
  type VerifierOptions,
  type VerifyResult,
} from './verify.js';
