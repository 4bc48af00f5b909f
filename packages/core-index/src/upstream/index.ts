/** The daily index run against an upstream model host: `@hub/core-index/upstream` (kept out of the root entry so
 * runtime bundles such as the Worker do not carry the builder and its GGUF reader). */

export { boundedAll } from '../index/pool.js';
export { SourceBreaker, type SourceCheck } from './breaker.js';
export {
  type Bucket,
  type BucketState,
  bucketOf,
  type Clock,
  errorOf,
  isTransient,
  nextLink,
  parseRateLimit,
  parseRetryAfter,
  type RateLimitInfo,
  systemClock,
  UpstreamClient,
  type UpstreamClientOptions,
  UpstreamError,
  type UpstreamStats,
  type WaitInfo,
} from './client.js';
export {
  ggufHeaderFiles,
  type IndexModelContext,
  indexModel,
  licenseOf,
  type ModelWork,
  notPublic,
  refusal,
  type SkipReason,
  type UpstreamRow,
  type UpstreamTreeEntry,
} from './model.js';
export {
  type HttpModelScopeOptions,
  httpModelScope,
  type ModelScopeAdapter,
  type ModelScopeFile,
  type ModelScopeListing,
} from './modelscope.js';
export {
  BUILD_LISTING_KIND,
  BUILD_RESULT_KIND,
  type BuildProgress,
  type BuildSummary,
  LISTING_EXPAND,
  runUpstreamBuild,
  type SkippedModel,
  type UpstreamBuildOptions,
  WORK_FORMAT,
  workRefName,
} from './run.js';
