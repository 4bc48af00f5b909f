export {
  DEFAULT_WRITE_BURST,
  DEFAULT_WRITES_PER_SECOND,
  type RateLimiter,
  type TakeResult,
  TokenBucketLimiter,
  type TokenBucketOptions,
} from './limiter.js';
export { type AccountDeps, type AccountServices, accountRoutes } from './routes.js';
export { ACCOUNT_SCHEMA, ACCOUNT_SQL } from './schema.js';
export { type AccountConfig, createAccountServices } from './services.js';
export { type AccountRecord, type AccountStore, isoTime, MemoryAccountStore, modelKey, type RequestOutcome } from './store.js';
export { createTokenVerifier } from './verify.js';
