export {
  type Clock,
  type UpstreamClientOptions,
  type UpstreamStats,
  UpstreamClient,
  UpstreamError,
  nextLink,
  parseRetryAfter,
  systemClock,
} from './client.js';
export {
  type HttpModelScopeOptions,
  type ModelScopeAdapter,
  type ModelScopeFile,
  type ModelScopeListing,
  httpModelScope,
} from './modelscope.js';
export { PINS_FORMAT, PinsError, emptyPins, parsePins, pinFor, pinSource } from './pins.js';
export {
  type IndexModelContext,
  type ModelWork,
  type SkipReason,
  type UpstreamRow,
  type UpstreamTreeEntry,
  ggufHeaderFiles,
  indexModel,
  isModelId,
  licenseOf,
  notPublic,
} from './model.js';
export {
  ARCHIVE_REGISTRY,
  BUILD_LISTING_KIND,
  BUILD_RESULT_KIND,
  type BuildProgress,
  type BuildSummary,
  type SkippedModel,
  type UpstreamBuildOptions,
  WORK_FORMAT,
  runUpstreamBuild,
  workRefName,
} from './run.js';
