import * as z from '../zod.js';
import { SOURCE_KINDS } from './source-kinds.js';

/** Zod schemas for every resource of the specification. OpenAPI is generated from these too. */

export * from './discovery-schemas.js';

export const AddressSchema = z.string().regex(/^blake3:[0-9a-f]{64}$/);
export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
export const CommitSchema = z.string().regex(/^[0-9a-f]{40}$/);
export const ModelIdSchema = z.string().regex(/^[^/\s]+\/[^/\s]+$/);
const DateTime = z.string();
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/**
 * The verdict on a revision's own OpenSSF model-signing bundle (`model.sig`), checked by the index run against the
 * index's per-file SHA-256 (docs/verification.md). `incomplete`: the signature verifies but some indexed files are
 * not covered; `needs-bytes`: the bundle signs shards or another hash than SHA-256, which only the bytes can check.
 */
export const SignatureVerdictSchema = z.object({
  status: z.enum(['verified', 'failed', 'incomplete', 'needs-bytes']),
  method: z.enum(['sigstore', 'key', 'certificate', 'unknown']),
  /** the certificate's subject alternative name, or the configured key's name */
  identity: z.string().optional(),
  /** the OIDC issuer the certificate names (Sigstore keyless) */
  issuer: z.string().optional(),
  /** the transparency log's integrated time (ISO 8601) */
  signed_at: z.string().optional(),
  /** the path of the bundle in the revision (`model.sig`) */
  bundle: z.string().optional(),
  covered: z.number().int().nonnegative(),
  unsigned: z.array(z.string()).optional(),
  mismatched: z.array(z.string()).optional(),
  missing: z.array(z.string()).optional(),
  /** why a `failed` or `needs-bytes` verdict was given */
  reason: z.string().optional(),
});

/** The scan levels the public host reports per file (its OpenAPI's `level` enum). */
export const SCAN_LEVELS = ['unscanned', 'safe', 'queued', 'error', 'caution', 'suspicious', 'unsafe'] as const;
export const ScanLevelSchema = z.enum(SCAN_LEVELS);

/** The public host's scan verdicts for one revision, as its `securityRepoStatus` and per-file `securityFileStatus`. */
export const ScanVerdictSchema = z.object({
  scansDone: z.boolean(),
  filesWithIssues: z.array(z.object({ path: z.string(), level: ScanLevelSchema })),
  /** per-file detail the host gave for the files with issues (`securityFileStatus`), kept as it came */
  files: z
    .record(z.string(), z.object({ status: z.string(), avScan: z.unknown().optional(), pickleImportScan: z.unknown().optional() }))
    .optional(),
});

export const SvcFactsSchema = z.object({
  manifest: AddressSchema,
  files: z.number().int().nonnegative(),
  weight_bytes: z.number().int().nonnegative().optional(),
  parameters: z.number().int().nonnegative().optional(),
  context: z.number().int().nonnegative().optional(),
  listed: z.boolean().optional(),
  sources: z.array(z.string()).optional(),
  /** the revision's own model signature, when it carries one */
  signature: SignatureVerdictSchema.optional(),
});

export const ModelRowSchema = z.object({
  _id: z.string().optional(),
  id: ModelIdSchema,
  modelId: ModelIdSchema,
  sha: CommitSchema,
  svc: SvcFactsSchema,
  author: z.string().optional(),
  pipeline_tag: z.string().optional(),
  library_name: z.string().optional(),
  private: z.literal(false).optional(),
  gated: z.literal(false).optional(),
  disabled: z.literal(false).optional(),
  likes: z.number().int().optional(),
  downloads: z.number().int().optional(),
  trendingScore: z.number().int().optional(),
  createdAt: DateTime.optional(),
  lastModified: DateTime.optional(),
  tags: z.array(z.string()).optional(),
});

export const SiblingSchema = z.object({
  rfilename: z.string(),
  size: z.number().int().optional(),
  blobId: z.string().optional(),
  lfs: z.object({ sha256: Sha256Schema, size: z.number().int(), pointerSize: z.number().int() }).optional(),
});

export const ModelInfoSchema = z.object({
  _id: z.string().optional(),
  id: ModelIdSchema,
  modelId: ModelIdSchema,
  sha: CommitSchema,
  siblings: z.array(SiblingSchema),
  author: z.string().optional(),
  tags: z.array(z.string()).optional(),
  downloads: z.number().int().optional(),
  likes: z.number().int().optional(),
  private: z.literal(false).optional(),
  gated: z.literal(false).optional(),
  disabled: z.literal(false).optional(),
  pipeline_tag: z.string().optional(),
  library_name: z.string().optional(),
  createdAt: DateTime.optional(),
  lastModified: DateTime.optional(),
  usedStorage: z.number().int().optional(),
  svc: SvcFactsSchema.optional(),
});

export const LfsSchema = z.object({
  oid: Sha256Schema,
  size: z.number().int().nonnegative(),
  pointerSize: z.number().int().nonnegative(),
});

export const TreeEntrySchema = z.object({
  type: z.literal('file'),
  oid: Sha256Schema,
  size: z.number().int().nonnegative(),
  path: z.string(),
  lfs: LfsSchema.optional(),
  lastCommit: z.object({ id: CommitSchema, title: z.string(), date: DateTime }).optional(),
  /** with `expand=true`: the public host's scan verdict for the file, in its shape (huggingface_hub's `security`) */
  securityFileStatus: z.object({ status: z.string(), avScan: z.unknown(), pickleImportScan: z.unknown() }).optional(),
});

export const RefsSchema = z.object({
  branches: z.array(z.object({ name: z.literal('main'), ref: z.literal('refs/heads/main'), targetCommit: CommitSchema })).length(1),
  tags: z.array(z.object({}).passthrough()),
  converts: z.array(z.object({}).passthrough()),
  pullRequests: z.array(z.object({}).passthrough()).optional(),
});

export const SourceStateSchema = z.object({
  ok: z.boolean(),
  checked: DateTime.nullable(),
  reason: z.string().optional(),
  /** A local mirror (design 10.3): what its manifest lists, and when its files were last re-hashed. */
  mirror: z.object({ files: z.number().int(), bytes: z.number().int(), verified: DateTime.nullable() }).optional(),
});

export const HubHealthSchema = z.object({
  sources: z.record(z.string(), SourceStateSchema),
  order: z.array(z.string()),
});

export const ArchiveDaySchema = z.object({
  date: Day,
  index: AddressSchema,
  archived: DateTime.optional(),
  catalog: AddressSchema.optional(),
  cid: z.string().optional(),
  models: z.number().int().optional(),
  addressed: z.number().int().optional(),
  files: z.number().int().optional(),
  bytes: z.number().int().optional(),
  prev: z.string().nullable().optional(),
  prev_ledger: z.string().nullable().optional(),
  source: z.string().optional(),
  /** The model-hub.spaces catalog current when the day was built. */
  spaces: AddressSchema.optional(),
  /** The model-hub.buckets catalog current when the day was built. */
  buckets: AddressSchema.optional(),
  /** The day's leaf index in the transparency log (design 10.4). */
  leaf: z.number().int().nonnegative().optional(),
  /** The signed checkpoint (a model-hub.checkpoint object) written right after the day was appended to the log. */
  checkpoint: AddressSchema.optional(),
  /** The root of the day's index pages (model-hub.index-pages, derived from the catalog by the builder; design 11.1). */
  pages: AddressSchema.optional(),
});

/** Where the log is served (C2SP tlog-tiles under `prefix`), its checkpoint URL and the verifier key(s) that sign it. */
export const LogAnnouncementSchema = z.object({
  prefix: z.string(),
  checkpoint: z.string(),
  origin: z.string(),
  size: z.number().int().nonnegative(),
  /** Verifier keys in the note format (`name+keyid+base64`). Check against a key obtained out of band. */
  keys: z.array(z.string()),
});

export const ArchiveSchema = z.object({
  format: z.literal('svc.model-hub.archive/v1').optional(),
  days: z.array(ArchiveDaySchema),
  gateway: z.string().optional(),
  mirror: z.string().optional(),
  registry: z.string().optional(),
  /** The transparency log of the days (design 10.4): where its checkpoint is served and the key that signs it. */
  log: LogAnnouncementSchema.optional(),
});

export const PinsSchema = z.object({
  format: z.literal('svc.model-hub.pins/v1'),
  gateway: z.string(),
  models: z.record(
    z.string(),
    z.object({ root: z.string(), revision: z.string(), pinned: Day.optional(), hidden: z.boolean().optional() }),
  ),
});

export const DescriptorSchema = z.object({
  format: z.literal('svc.model-hub.descriptor/v1'),
  name: z.string().optional(),
  about: z.string().optional(),
  catalog: AddressSchema,
  snapshot: Day.optional(),
  fetch: z.string(),
  find: z.string().optional(),
  publish: z.string().optional(),
  openapi: z.string(),
  capabilities: z.string().optional(),
  registry: z.string().optional(),
  guide: z.string().optional(),
  addresses: z.record(z.string(), z.string()).optional(),
  kinds: z.record(z.string(), z.string()).optional(),
  log: LogAnnouncementSchema.optional(),
});

// ---- hub object kinds -------------------------------------------------------------------------

export const FileRecordSchema = z.object({
  path: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: Sha256Schema,
});

export const GgufFactsSchema = z.object({
  /** path of the GGUF file these facts were read from */
  path: z.string(),
  architecture: z.string().optional(),
  name: z.string().optional(),
  quantization: z.string().optional(),
  file_type: z.number().int().optional(),
  parameters: z.number().int().optional(),
  context_length: z.number().int().optional(),
  chat_template: z.string().optional(),
});

export const ModelFactsSchema = z.object({
  pipeline_tag: z.string().optional(),
  library_name: z.string().optional(),
  tags: z.array(z.string()).optional(),
  parameters: z.number().int().optional(),
  context: z.number().int().optional(),
  gguf: z.array(GgufFactsSchema).optional(),
  /** When the upstream created the repository and last changed it, if known. */
  createdAt: DateTime.optional(),
  lastModified: DateTime.optional(),
});

export const ModelObjectSchema = z.object({
  kind: z.literal('model-hub.model'),
  id: ModelIdSchema,
  revision: CommitSchema,
  license: z.string().nullable(),
  files: z.array(FileRecordSchema),
  facts: ModelFactsSchema,
  /** the verdict on the revision's `model.sig`, when it carries one */
  signature: SignatureVerdictSchema.optional(),
  /** the public host's scan verdicts for this revision, when it was asked */
  scan: ScanVerdictSchema.optional(),
  prev: AddressSchema.nullable(),
});

export const SourceObjectSchema = z.object({
  kind: z.literal('model-hub.source'),
  model: ModelIdSchema,
  revision: CommitSchema,
  /** Health key of the source that holds these bytes (`huggingface.co`, `modelscope.cn`, `ipfs`, or an operator mirror's name). */
  source: z.string(),
  /** One of the source kinds (sources/source-kinds.ts), or `svc` (chunk objects of this hub). */
  type: z.enum([...SOURCE_KINDS, 'svc']),
  /** For `http`: a URL template with `{id}`, `{owner}`, `{name}`, `{revision}`, `{path}`. */
  url: z.string().optional(),
  /** For `ipfs`: the root CID of the model directory. */
  root: z.string().optional(),
  /** For `svc`: chunk objects per path. */
  chunks: z.record(z.string(), z.array(AddressSchema)).optional(),
  /** The repository id at that source, when it differs from the hub id (matched by SHA-256, never by name). */
  remote_id: z.string().optional(),
  /** The revision (branch or commit) at that source, when it differs from the hub's (`{revision}` in its URL template). */
  remote_revision: z.string().optional(),
  /** The paths this source holds; absent means every file of the revision. */
  paths: z.array(z.string()).optional(),
});

export const CatalogEntrySchema = z.object({ model: AddressSchema, sources: z.array(AddressSchema) });

export const CatalogObjectSchema = z.object({
  kind: z.literal('model-hub.catalog'),
  date: Day,
  rows: z.array(ModelRowSchema),
  objects: z.record(z.string(), CatalogEntrySchema),
  prev: AddressSchema.nullable(),
  /**
   * A sharded catalog (one that would pass the message limit): `rows` and `objects` are empty here and the shards,
   * in order, hold them; concatenated they are the catalog's rows in browse order and its whole objects map.
   */
  shards: z.array(z.object({ address: AddressSchema, models: z.number().int().nonnegative() })).optional(),
});

/** One shard of a sharded catalog: a contiguous run of the catalog's rows (browse order) and their objects entries. */
export const CatalogShardSchema = z.object({
  kind: z.literal('model-hub.catalog-shard'),
  rows: z.array(ModelRowSchema),
  objects: z.record(z.string(), CatalogEntrySchema),
});

// ---- object server ---------------------------------------------------------------------------

export const ObjectMetadataSchema = z.object({
  id: z.string(),
  kind: z.string(),
  media_type: z.string(),
  size: z.number().int().nonnegative(),
  created_at_millis: z.number().int().nonnegative(),
  filename: z.string().nullable().optional(),
});

export const OperationInfoSchema = z.object({
  id: z.string(),
  kind: z.enum(['read', 'mutation', 'stream']),
  fallback_safe_before_dispatch: z.boolean(),
});

export const ModuleInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  state: z.string(),
  dependencies: z.array(z.string()),
  operations: z.array(z.string()),
});

export const CapabilityManifestSchema = z.object({
  protocol_version: z.number().int().nonnegative(),
  server_version: z.string(),
  server_id: z.string(),
  role: z.string(),
  operations: z.array(OperationInfoSchema),
  modules: z.array(ModuleInfoSchema),
  maximum_message_bytes: z.number().int().nonnegative(),
});

export const HealthResponseSchema = z.object({
  status: z.string(),
  version: z.string(),
  role: z.string(),
  modules_ready: z.number().int().nonnegative(),
});

// ---- errors ----------------------------------------------------------------------------------

export const HubErrorSchema = z.object({ error: z.string() });
export const ApiErrorSchema = z.object({ code: z.string(), message: z.string() });
export const OciErrorSchema = z.object({
  errors: z.array(z.object({ code: z.string(), message: z.string(), detail: z.unknown().optional() })),
});

export type ModelRow = z.Infer<typeof ModelRowSchema>;
export type ModelInfo = z.Infer<typeof ModelInfoSchema>;
export type TreeEntry = z.Infer<typeof TreeEntrySchema>;
export type Refs = z.Infer<typeof RefsSchema>;
export type SourceState = z.Infer<typeof SourceStateSchema>;
export type HubHealth = z.Infer<typeof HubHealthSchema>;
export type ArchiveDay = z.Infer<typeof ArchiveDaySchema>;
export type Archive = z.Infer<typeof ArchiveSchema>;
export type LogAnnouncement = z.Infer<typeof LogAnnouncementSchema>;
export type Pins = z.Infer<typeof PinsSchema>;
export type Descriptor = z.Infer<typeof DescriptorSchema>;
export type FileRecord = z.Infer<typeof FileRecordSchema>;
export type GgufFacts = z.Infer<typeof GgufFactsSchema>;
export type ModelFacts = z.Infer<typeof ModelFactsSchema>;
export type ModelObject = z.Infer<typeof ModelObjectSchema>;
export type SignatureVerdict = z.Infer<typeof SignatureVerdictSchema>;
export type ScanVerdict = z.Infer<typeof ScanVerdictSchema>;
export type ScanLevel = z.Infer<typeof ScanLevelSchema>;
export type SourceObject = z.Infer<typeof SourceObjectSchema>;
export type CatalogObject = z.Infer<typeof CatalogObjectSchema>;
export type CatalogShard = z.Infer<typeof CatalogShardSchema>;
export type ObjectMetadata = z.Infer<typeof ObjectMetadataSchema>;
export type CapabilityManifest = z.Infer<typeof CapabilityManifestSchema>;
export type HealthResponse = z.Infer<typeof HealthResponseSchema>;
