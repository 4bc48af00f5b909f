export * from './buckets/schema.js';
export { type CoreDeps, type HubSettings, type Logger, MemoryMissingLog, type MissingLog, recordMissing, silentLogger } from './deps.js';
export { type Admission, type AdmitInput, admitRequest, errorShapes } from './http/admit.js';
export {
  type ApiContent,
  type ApiQuery,
  type ApiResponse,
  type ApiResponses,
  arrayOf,
  bin,
  describeRoutes,
  header,
  JSON_CT,
  jsonContent,
  jsonOk,
  ok,
  type RouteApi,
  ref,
  str,
  textOk,
} from './http/api.js';
export * from './http/contract.js';
export { createHub, type Hub, type RequestScope, splitUrl } from './http/create-hub.js';
export { type HostPolicy, isLoopbackName, originHostname, parseHost } from './http/host-policy.js';
export { type MatchResult, type RouteMatch, Router } from './http/router.js';
export {
  bearerToken,
  EXPOSED_HEADERS,
  registryCredential,
  shapeForPath,
  timingSafeEqualString,
  tokenMatches,
  withoutCredentials,
} from './http/rules.js';
export { type Address, addressOf, type Blake3Hex, blake3Hex, blake3HexPure, isAddress, useBlake3 } from './index/blake3.js';
export {
  ARCHIVE_REGISTRY,
  type BuildInput,
  type BuildModelInput,
  type BuildResult,
  buildIndex,
  putJson,
  readArchive,
} from './index/builder.js';
export { canonicalBytes, canonicalJson } from './index/canonical-json.js';
export {
  CATALOG_MESSAGE_LIMIT,
  CATALOG_SHARD_KIND,
  CatalogReadError,
  readCatalog,
  splitCatalog,
  writeCatalog,
} from './index/catalog-shards.js';
export { formatBytes, shellQuote } from './index/format.js';
export { ggufFactsOf, type ParsedGguf } from './index/gguf-facts.js';
export { type IndexedModel, IndexLoadError, type IndexStore, type LoadPackStorage, loadIndex } from './index/index-store.js';
export { namedJsonSchemas } from './index/json-schema.js';
export { listFrom, MemoryObjectStore } from './index/memory-object-store.js';
export { isModelId, MAX_MODEL_ID_LENGTH } from './index/model-id.js';
export { ObjectCache } from './index/object-cache.js';
export type { ListPage, ListQuery, ObjectStore, PutOptions, StoredObject } from './index/object-store.js';
export { newObjectMetadata, REF_NAME } from './index/object-store.js';
export { type OllamaTemplate, ollamaTemplateFor } from './index/ollama-template.js';
export { emptyPins, PinsError, parsePins } from './index/pins.js';
export { BoundedQueue, boundedAll } from './index/pool.js';
export { defaultGgufFile, defaultQuant, isLaterSplit, isMmproj, QUANT_PREFERENCE, quantOf } from './index/quant.js';
export * from './index/schemas.js';
export { isSortKey, type ModelQuery, type SearchPage, type SortKey, searchModels, searchModelsPage } from './index/search.js';
export { createSha256, reprDigestFromHex, sha256Hex } from './index/sha256.js';
export { type BuiltObjectKind, StartPack } from './index/start-pack.js';
export {
  type AppendResult,
  appendDays,
  CHECKPOINT_KIND,
  CHECKPOINT_MEDIA_TYPE,
  checkLogStore,
  LOG_ENTRY_KIND,
  LOG_REF,
  LOG_TILE_KIND,
  type LogEntry,
  LogEntrySchema,
  type LogState,
  LogStateError,
  readLogEntries,
  readLogState,
  readTile,
} from './log/log-store.js';
export {
  type Checkpoint,
  formatCheckpoint,
  generateSignerKey,
  NoteError,
  type NoteSigner,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  parseVerifierKey,
} from './log/note.js';
export {
  consistencyProof,
  equalHash,
  type Hash,
  inclusionProof,
  leafHash,
  parseBundle,
  parseTilePath,
  type Tile,
  tilePath,
  tilesForSize,
  toHex,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from './log/tlog.js';
export {
  type DayWalk,
  type LogFailure,
  type LogSeen,
  LogSeenSchema,
  LogVerifyError,
  logPrefix,
  type VerifiedLog,
  type VerifyLogOptions,
  verifyLog,
  walkDay,
} from './log/verify-log.js';
export {
  accessLog,
  type MetricEvent,
  type Metrics,
  methodLabel,
  noMetrics,
  type RequestEvent,
  type RouteGroup,
  routeGroup,
  teeMetrics,
  type UpstreamEvent,
} from './metrics.js';
export {
  holdingOf,
  MIRROR_FORMAT,
  MIRROR_MANIFEST,
  type MirrorHolding,
  type MirrorManifest,
  mirrorFilePath,
  mirrorHolds,
  parseMirrorManifest,
} from './sources/mirror-manifest.js';
export {
  DEFAULT_PROBE_SETTINGS,
  nextProbeDelaySeconds,
  PROBE_REASONS,
  type ProbeOptions,
  type ProbeOutcome,
  type ProbeReason,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  probeConfigProblem,
  probeRetryAfterSeconds,
  probeSettings,
  probeSource,
  probeUrl,
  pullForward,
  type SourceProbeRecord,
} from './sources/prober.js';
export {
  type ChooseInput,
  type ChooseResult,
  chooseSource,
  type HealthOptions,
  isOllama,
  MemorySourceHealth,
  type MirrorSource,
  ollamaRedirectRules,
  type ProbeResult,
  type RedirectRules,
  type SourceChoice,
  type SourceHealth,
  sourceHolds,
} from './sources/source-health.js';
export {
  DEFAULT_IPFS_GATEWAY,
  DEFAULT_SOURCES,
  isSourceKind,
  SOURCE_KIND_INFO,
  SOURCE_KINDS,
  type SourceConfig,
  type SourceKind,
  sourceKindProblem,
} from './sources/source-kinds.js';
export { memoryProbeStorage, type ProbeStorage, SourceProber, type SourceProberOptions } from './sources/source-prober.js';
export * from './spaces/catalog.js';
export * from './spaces/schema.js';
