/** The daily index run against an upstream model host: `@hub/upstream` (a package of its own so
 * runtime bundles such as the Worker do not carry the crawler and its GGUF reader). */

export { SourceBreaker, type SourceCheck } from './breaker.js';
export {
  type Clock,
  nextLink,
  systemClock,
  UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamStats,
  type WaitInfo,
} from './client.js';
export { errorOf, isTransient, UpstreamError } from './errors.js';
export { BUILD_LISTING_KIND, LISTING_EXPAND } from './listing.js';
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
export { type Bucket, type BucketState, bucketOf, parseRateLimit, parseRetryAfter, type RateLimitInfo } from './rate-limit.js';
export { runUpstreamBuild } from './run.js';
export { BUILD_RESULT_KIND, WORK_FORMAT, workRefName } from './state.js';
export type { BuildProgress, BuildSummary, SkippedModel, UpstreamBuildOptions } from './types.js';
