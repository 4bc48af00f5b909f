export {
  BUCKET_BLOB_KIND,
  BUCKETS_KIND,
  BUCKETS_REF,
  type BucketEntry,
  type BucketsCatalog,
  BucketsCatalogSchema,
} from './buckets/schema.js';
export { MEMO_CHUNK_KIND, MEMO_KIND } from './build/build-memo.js';
export {
  ARCHIVE_REGISTRY,
  type BuildInput,
  type BuildModelInput,
  type BuildResult,
  buildIndex,
  putJson,
  readArchive,
} from './build/builder.js';
export { commitDays } from './build/commit-days.js';
export { namedJsonSchemas } from './build/json-schema.js';
export { LoadPackWriter } from './build/load-pack-writer.js';
export type { UnchangedModelInput } from './build/unchanged-model.js';
export { admitRequest, errorShapes } from './http/admit.js';
export {
  type ApiContent,
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
export {
  BodyTooLargeError,
  type ErrorShape,
  errorResponse,
  fnv1a,
  fnv1aText,
  type Handler,
  type HeaderBag,
  type HubRequest,
  type HubResponse,
  iterateBody,
  json,
  type PreparedBody,
  parseBool,
  parseRange,
  prepare,
  type Route,
  type RouteContext,
  readBody,
  sendPrepared,
  utf8,
} from './http/contract.js';
export { createHub, type Hub, type RequestScope, withParams } from './http/create-hub.js';
export {
  type CoreDeps,
  type HubSettings,
  MemoryMissingLog,
  type MissingLog,
  recordMissing,
} from './http/deps.js';
export type { HostPolicy } from './http/host-policy.js';
export { HostSettingsError, hostPolicyFrom } from './http/host-settings.js';
export {
  PolicyConfigError,
  parsePolicy,
  policyRefusal,
  type Refusal,
  type ServePolicy,
} from './http/policy.js';
export { Router } from './http/router.js';
export { bearerToken, shapeForPath, timingSafeEqualString } from './http/rules.js';
export { type HostRequest, type HubStart, serve } from './http/serve.js';
export { type Address, addressOf, blake3Hex, blake3HexPure, isAddress, useBlake3 } from './index/blake3.js';
export {
  BUNDLE_FILE,
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_V1,
  BUNDLE_OBJECTS_FILE,
  type Bundle,
  type BundleObject,
  BundleObjectSchema,
  BundleSchema,
  type BundleV1,
  BundleV1Schema,
} from './index/bundle-schema.js';
export { ByteLru } from './index/byte-lru.js';
export { type CacheBudget, cacheBudget, SERVER_CACHE_BYTES } from './index/cache-budget.js';
export { canonicalBytes, canonicalJson } from './index/canonical-json.js';
export { readCatalog } from './index/catalog-shards.js';
export {
  type AgentCard,
  AgentCardSchema,
  type RequestObject,
  type SectionDescriptor,
  SectionDescriptorSchema,
} from './index/discovery-schemas.js';
export { encodePath } from './index/encode-path.js';
export { formatBytes, shellQuote } from './index/format.js';
export { ggufFactsOf, type ParsedGguf } from './index/gguf-facts.js';
export { HashSlots } from './index/hash-slots.js';
export { type IndexedModel, IndexLoadError, type IndexStore, type LoadPackStorage, loadIndex } from './index/index-store.js';
export {
  MADE_DIGEST_BYTES,
  MADE_PAGE_BYTES,
  MADE_RECORD_HEAD,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  MADE_VERSION,
  type MadeAnswerMaker,
  type MadeAnswers,
  type MadeHead,
  madeHeadBytes,
  madeHeadRead,
  madeKeyHash,
  madeRecordAnswer,
  madeRecordFields,
  madeRecordLengthAt,
  madeRecordRead,
  madeRecordSpan,
  madeSlotCount,
} from './index/made-answers.js';
export { listFrom, MemoryObjectStore } from './index/memory-object-store.js';
export { isModelId, MAX_MODEL_ID_LENGTH, ociName } from './index/model-id.js';
export { ObjectCache } from './index/object-cache.js';
export type { ListPage, ListQuery, ObjectStore, PutOptions, StoredListing, StoredObject } from './index/object-store.js';
export { newObjectMetadata, REF_NAME, withRef } from './index/object-store.js';
export { ollamaTemplateFor } from './index/ollama-template.js';
export { PAGE_KIND, PAGES_KIND, type PagedEntry, type PagesRoot } from './index/page-layout.js';
export { openPagedIndex, PagedIndex, type PagedIndexOptions } from './index/paged-index.js';
export { pagedModel } from './index/paged-model.js';
export { emptyPins, PinsError, parsePins } from './index/pins.js';
export { BoundedQueue, boundedAll } from './index/pool.js';
export { defaultGgufFile, defaultQuant, isLaterSplit, isMmproj, QUANT_PREFERENCE, quantOf } from './index/quant.js';
export {
  type Archive,
  ArchiveSchema,
  type CapabilityManifest,
  type CatalogObject,
  CatalogObjectSchema,
  CatalogShardSchema,
  type Descriptor,
  DescriptorSchema,
  type FileRecord,
  type GgufFacts,
  type HealthResponse,
  type HubHealth,
  HubHealthSchema,
  type LogAnnouncement,
  type ModelFacts,
  type ModelInfo,
  ModelInfoSchema,
  type ModelObject,
  ModelObjectSchema,
  type ModelRow,
  ModelRowSchema,
  type ObjectMetadata,
  type Pins,
  type Refs,
  RefsSchema,
  SCAN_LEVELS,
  type ScanVerdict,
  type SignatureVerdict,
  type SourceObject,
  SourceObjectSchema,
  type TreeEntry,
  TreeEntrySchema,
} from './index/schemas.js';
export { isSortKey, type ModelQuery, type SortKey } from './index/search.js';
export { createSha256, reprDigestFromHex, sha256Hex } from './index/sha256.js';
export {
  DEFAULT_IPFS_GATEWAY,
  DEFAULT_SOURCES,
  isSourceKind,
  MODELSCOPE_URL,
  SOURCE_KIND_INFO,
  type SourceConfig,
  sourceKindProblem,
} from './index/source-kinds.js';
export { type Later, lookUp, whenReady } from './index/store-types.js';
export { type Logger, silentLogger } from './observe/logger.js';
export {
  type AnswerLabels,
  accessLog,
  type MetricEvent,
  type Metrics,
  noMetrics,
  ROUTE_GROUPS,
  type RouteGroup,
  type Tally,
  teeMetrics,
} from './observe/metrics.js';
export {
  MIRROR_FORMAT,
  MIRROR_MANIFEST,
  type MirrorManifest,
  mirrorFilePath,
  mirrorHolds,
  parseMirrorManifest,
} from './sources/mirror-manifest.js';
export { type ProbeRound, type ProbeSettings, type ProbeState, probeConfigProblem, probeSettings } from './sources/prober.js';
export { isOllama, MemorySourceHealth, ollamaRedirectRules, type SourceHealth, sourceHolds } from './sources/source-health.js';
export { type ProbeStorage, SourceProber } from './sources/source-prober.js';
export { besideNotes } from './sources/unavailable.js';
export { readSpace, readSpaces, recordSpace, SPACES_REF, spaceConflict } from './spaces/catalog.js';
export {
  missingAddresses,
  SPACE_KIND,
  SPACES_KIND,
  type SpaceObject,
  SpaceObjectSchema,
  SpacePathSchema,
  type SpacesCatalog,
  SpacesCatalogSchema,
  spaceMediaType,
} from './spaces/schema.js';
export {
  appendDays,
  CHECKPOINT_MEDIA_TYPE,
  checkLogStore,
  LOG_TILE_KIND,
  LogStateError,
  readLogEntries,
  readLogState,
  readTile,
} from './tlog/log-store.js';
export { generateSignerKey, NoteError, type NoteSigner, openNote, parseCheckpoint, parseSignerKey, parseVerifierKey } from './tlog/note.js';
export { leafHash, parseTilePath, treeHash } from './tlog/tlog.js';
export {
  type DayWalk,
  type LogSeen,
  LogSeenSchema,
  LogVerifyError,
  logPrefix,
  type VerifiedLog,
  verifyLog,
  walkDay,
} from './tlog/verify-log.js';
