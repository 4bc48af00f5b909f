export { canonicalJson, canonicalBytes } from './canonical-json.js';
export {
  type Address,
  type Blake3Hex,
  ADDRESS_PATTERN,
  COMMIT_PATTERN,
  SHA256_PATTERN,
  addressOf,
  blake3Hex,
  blake3HexPure,
  isAddress,
  useBlake3,
} from './blake3.js';
export { sha256Hex, createSha256, reprDigestFromHex } from './sha256.js';
export * from './schemas.js';
export * from './http.js';
export { Router, type MatchResult, type RouteMatch } from './router.js';
export type { ObjectStore, StoredObject, PutOptions, ListQuery, ListPage } from './object-store.js';
export { REF_NAME, newObjectMetadata } from './object-store.js';
export { MemoryObjectStore, listFrom } from './memory-object-store.js';
export { type IndexStore, type IndexedModel, IndexLoadError, loadIndex, isWeightFile } from './index-store.js';
export {
  type SourceConfig,
  type SourceChoice,
  type ChooseInput,
  type ChooseResult,
  type SourceHealth,
  type ProbeResult,
  DEFAULT_SOURCES,
  MemorySourceHealth,
  chooseSource,
  expandTemplate,
  sourceHolds,
} from './source-health.js';
export {
  type ProbeReason,
  type ProbeSettings,
  type ProbeOutcome,
  type ProbeOptions,
  type SourceProbeRecord,
  type ProbeState,
  type ProbeRoundInput,
  type ProbeRound,
  PROBE_REASONS,
  DEFAULT_PROBE_SETTINGS,
  probeSettings,
  probeConfigProblem,
  probeUrl,
  probeSource,
  nextProbeDelaySeconds,
  emptyProbeState,
  probedSources,
  currentProbeState,
  healthStates,
  nextProbeDue,
  probeRetryAfterSeconds,
  recordOutcome,
  runProbeRound,
} from './prober.js';
export { type ModelQuery, type SortKey, SORT_KEYS, isSortKey, searchModels, modelTags } from './search.js';
export { quantOf, isMmproj, isLaterSplit, QUANT_PREFERENCE } from './quant.js';
export { type OllamaTemplate, ollamaTemplateFor } from './ollama-template.js';
export {
  type BuildInput,
  type BuildModelInput,
  type BuildResult,
  ARCHIVE_REGISTRY,
  JSON_MEDIA_TYPE,
  buildIndex,
  modelObjectId,
  putJson,
  readArchive,
  treeRevision,
} from './builder.js';
export { type CoreDeps, type HubSettings, type Logger, type MissingLog, MemoryMissingLog, silentLogger } from './deps.js';
export { NAMED_SCHEMAS, WireSchemas, jsonSchemaOf, namedJsonSchemas } from './json-schema.js';
export { emptyPins, PINS_FORMAT, PinsError, parsePins, pinFor, pinSource } from './upstream/pins.js';
