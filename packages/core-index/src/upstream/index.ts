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
export { emptyPins, PINS_FORMAT, PinsError, parsePins, pinFor, pinSource } from './pins.js';
export {
  ARCHIVE_REGISTRY,
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
