import * as z from '../zod.js';

/** The discovery documents' schemas (spec: Discovery): section descriptors, their request objects, the agent card. */

export const RequestObjectSchema = z.object({
  method: z.literal('GET'),
  url: z.string(),
  returns: z.string(),
  dialect: z.enum(['objects', 'huggingface', 'oci', 'http']).optional(),
  caps_at: z.number().int().optional(),
  note: z.string().optional(),
  artifact_type: z.string().optional(),
});

export const SectionDescriptorSchema = z.object({
  format: z.literal('svc.section.descriptor/v1'),
  section: z.enum(['models', 'registry', 'spaces', 'buckets', 'docs']),
  title: z.string().optional(),
  about: z.string(),
  self: z.string(),
  inventory: z.object({ described: z.number().int().nullable(), served_here: z.number().int().nullable(), note: z.string() }),
  catalog: z
    .object({
      address: z.string().nullable(),
      fetch: z.string(),
      format: z.string(),
      media_type: z.string().optional(),
      note: z.string().optional(),
    })
    .nullable(),
  catalog_note: z.string().optional(),
  list: z.array(RequestObjectSchema),
  item: RequestObjectSchema,
  files: RequestObjectSchema.optional(),
  fetch: RequestObjectSchema,
  verify: z.object({
    algorithm: z.enum(['sha256', 'blake3', 'none']),
    expected_from: z.string(),
    server_verifies_on_read: z.literal(false),
    root: z.string().optional(),
    privacy: z.string().optional(),
  }),
  one_line: z.string().optional(),
  pages: z.array(z.object({ title: z.string(), html: z.string(), markdown: z.string() })).optional(),
  brief: z.string(),
  page: z.string(),
  openapi: z.string(),
});

export const AgentCardSchema = z.object({
  name: z.string(),
  description: z.string(),
  url: z.string(),
  version: z.string().optional(),
  provider: z.object({ organization: z.string(), url: z.string() }).optional(),
  documentationUrl: z.string().optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  defaultInputModes: z.array(z.string()).optional(),
  defaultOutputModes: z.array(z.string()).optional(),
  skills: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      tags: z.array(z.string()).optional(),
      examples: z.array(z.string()).optional(),
    }),
  ),
});

export type SectionDescriptor = z.Infer<typeof SectionDescriptorSchema>;
export type RequestObject = z.Infer<typeof RequestObjectSchema>;
export type AgentCard = z.Infer<typeof AgentCardSchema>;
