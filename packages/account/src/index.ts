export {
  type AccountDeps,
  type AccountServices,
  accountRoutes,
  isModelId,
  isWallet,
  MAX_ACCOUNT_BODY_BYTES,
  MAX_MODEL_ID_LENGTH,
  MAX_REQUESTS_PER_ACCOUNT,
  MAX_SAVED,
  MAX_WALLET_LENGTH,
} from './routes.js';
export { type AccountRecord, type AccountStore, type RequestOutcome, MemoryAccountStore, isoTime, modelKey } from './store.js';
export {
  type AccountKeyConfig,
  type TokenFailure,
  type TokenVerifier,
  type VerifierOptions,
  type VerifyResult,
  AccountConfigError,
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_MAX_TOKEN_LENGTH,
  createTokenVerifier,
  isDid,
} from './verify.js';
export {
  type RateLimiter,
  type TakeResult,
  type TokenBucketOptions,
  DEFAULT_WRITE_BURST,
  DEFAULT_WRITES_PER_SECOND,
  TokenBucketLimiter,
} from './limiter.js';
export { type AccountConfig, createAccountServices } from './services.js';
export { ACCOUNT_SCHEMA } from './schema.js';
