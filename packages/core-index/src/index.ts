export {
  ADDRESS_PATTERN,
  type Address,
  addressOf,
  type Blake3Hex,
  blake3Hex,
  blake3HexPure,
  COMMIT_PATTERN,
  isAddress,
  SHA256_PATTERN,
  useBlake3,
} from './blake3.js';
export {
  ARCHIVE_REGISTRY,
  type BuildInput,
  type BuildModelInput,
  type BuildResult,
  buildIndex,
  JSON_MEDIA_TYPE,
  modelObjectId,
  putJson,
  readArchive,
  treeRevision,
} from './builder.js';
export { canonicalBytes, canonicalJson } from './canonical-json.js';
export { type CoreDeps, type HubSettings, type Logger, MemoryMissingLog, type MissingLog, silentLogger } from './deps.js';
export * from './http.js';
export { type IndexedModel, IndexLoadError, type IndexStore, isWeightFile, loadIndex } from './index-store.js';
export { jsonSchemaOf, NAMED_SCHEMAS, namedJsonSchemas, WireSchemas } from './json-schema.js';
export { listFrom, MemoryObjectStore } from './memory-object-store.js';
export type { ListPage, ListQuery, ObjectStore, PutOptions, StoredObject } from './object-store.js';
export { newObjectMetadata, REF_NAME } from './object-store.js';
export { type OllamaTemplate, ollamaTemplateFor } from './ollama-template.js';
export {
  currentProbeState,
  DEFAULT_PROBE_SETTINGS,
  emptyProbeState,
  healthStates,
  nextProbeDelaySeconds,
  nextProbeDue,
  PROBE_REASONS,
  type ProbeOptions,
  type ProbeOutcome,
  type ProbeReason,
  type ProbeRound,
  type ProbeRoundInput,
  type ProbeSettings,
  type ProbeState,
  probeConfigProblem,
  probedSources,
  probeRetryAfterSeconds,
  probeSettings,
  probeSource,
  probeUrl,
  recordOutcome,
  runProbeRound,
  type SourceProbeRecord,
} from './prober.js';
export { isLaterSplit, isMmproj, QUANT_PREFERENCE, quantOf } from './quant.js';
export { type MatchResult, type RouteMatch, Router } from './router.js';
export * from './schemas.js';
export { isSortKey, type ModelQuery, modelTags, SORT_KEYS, type SortKey, searchModels } from './search.js';
export { createSha256, reprDigestFromHex, sha256Hex } from './sha256.js';
export {
  type ChooseInput,
  type ChooseResult,
  chooseSource,
  DEFAULT_SOURCES,
  expandTemplate,
  MemorySourceHealth,
  type ProbeResult,
  type SourceChoice,
  type SourceConfig,
  type SourceHealth,
  sourceHolds,
} from './source-health.js';
export * from './spaces/catalog.js';
export * from './spaces/schema.js';
export { emptyPins, PINS_FORMAT, PinsError, parsePins, pinFor, pinSource } from './upstream/pins.js';
