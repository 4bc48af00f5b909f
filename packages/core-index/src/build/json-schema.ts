import { BucketsCatalogSchema } from '../buckets/schema.js';
import * as S from '../index/schemas.js';
import { SpaceObjectSchema, SpacesCatalogSchema } from '../spaces/schema.js';
import * as z from '../zod.js';

/**
 * Spec resources that no handler in core-index builds, declared here so the machine description
 * (OpenAPI, generated in `@hub/hub`) comes from zod schemas like every other body.
 */
const OciDescriptorSchema = z
  .object({
    mediaType: z.string(),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    size: z.number().int().nonnegative(),
    annotations: z.record(z.string(), z.string()).optional(),
  })
  .passthrough();

export const WireSchemas = {
  OciCatalog: z.object({ repositories: z.array(z.string()) }),
  OciTagList: z.object({ name: z.string(), tags: z.array(z.string()) }),
  OciDescriptor: OciDescriptorSchema,
  OciManifest: z
    .object({
      schemaVersion: z.literal(2),
      mediaType: z.string(),
      config: OciDescriptorSchema,
      layers: z.array(OciDescriptorSchema),
      artifactType: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .passthrough(),
  JsonRpcRequest: z.object({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    id: z.union([z.string(), z.number().int()]).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  JsonRpcResponse: z.object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int(), z.null()]).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  }),
  AccountHealth: z.object({ ok: z.boolean(), configured: z.boolean().optional() }),
  Account: z.object({
    did: z.string(),
    created: z.string().optional(),
    wallet: z.string().nullable().optional(),
    saved: z.array(z.string()).optional(),
    requests: z.number().int().optional(),
  }),
  SavedList: z.object({ saved: z.array(z.string()) }),
};

/** Every named body schema of the spec, by the name the machine description uses. */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  Descriptor: S.DescriptorSchema,
  SectionDescriptor: S.SectionDescriptorSchema,
  RequestObject: S.RequestObjectSchema,
  AgentCard: S.AgentCardSchema,
  ModelRow: S.ModelRowSchema,
  ModelInfo: S.ModelInfoSchema,
  TreeEntry: S.TreeEntrySchema,
  Refs: S.RefsSchema,
  HubHealth: S.HubHealthSchema,
  Archive: S.ArchiveSchema,
  Pins: S.PinsSchema,
  CatalogObject: S.CatalogObjectSchema,
  ModelObject: S.ModelObjectSchema,
  SourceObject: S.SourceObjectSchema,
  SpaceObject: SpaceObjectSchema,
  SpacesCatalog: SpacesCatalogSchema,
  BucketsCatalog: BucketsCatalogSchema,
  ObjectMetadata: S.ObjectMetadataSchema,
  CapabilityManifest: S.CapabilityManifestSchema,
  HealthResponse: S.HealthResponseSchema,
  HubError: S.HubErrorSchema,
  ApiError: S.ApiErrorSchema,
  OciError: S.OciErrorSchema,
  ...WireSchemas,
};

/** A zod schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses), without the `$schema` key. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** {@link NAMED_SCHEMAS} converted, for `components.schemas`. */
export function namedJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) out[name] = jsonSchemaOf(schema);
  return out;
}
