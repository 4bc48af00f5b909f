/** The daily index run against an upstream model host: `@hub/core-index/upstream` (kept out of the root entry so
 * runtime bundles such as the Worker do not carry the builder and its GGUF reader). */
export {
  type Clock,
  nextLink,
  parseRetryAfter,
  systemClock,
  UpstreamClient,
  type UpstreamClientOptions,
  UpstreamError,
  type UpstreamStats,
} from './client.js';
export {
  ggufHeaderFiles,
  type IndexModelContext,
  indexModel,
  isModelId,
  licenseOf,
  type ModelWork,
  notPublic,
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
  runUpstreamBuild,
  type SkippedModel,
  type UpstreamBuildOptions,
  WORK_FORMAT,
  workRefName,
} from './run.js';
