/** What every tool shares: the result and context types, the tool error, cursors and the model lookup. */
import {
  type CoreDeps,
  defaultQuant as coreDefaultQuant,
  encodePath,
  formatBytes,
  type IndexedModel,
  type IndexStore,
  isMmproj,
  quantOf,
  recordMissing,
} from '@hub/core-index';
import { humanCount } from '../paging.js';
import * as z from '../zod.js';

/** What a tool answers: MCP's CallToolResult with text and structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolContext<D extends CoreDeps = CoreDeps> {
  deps: D;
  /** `scheme://host` of this hub, for absolute URLs */
  origin: string;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject<z.ZodRawShape>;
  /** one line showing good arguments, appended to argument errors */
  example: string;
  run(args: any, ctx: ToolContext): Promise<ToolResult>;
}

/** Thrown by a tool for an answer with `isError: true`; the message names the fix. */
export class ToolError extends Error {}

export const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;

export const SEARCH_SORTS = ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified'] as const;
export const DETAIL_OPERATIONS = ['overview', 'files', 'quants', 'sources'] as const;

export const cursorArg = z
  .string()
  .max(1000)
  .optional()
  .describe('next_cursor from the previous answer of this tool, to continue a listing that was cut');

export function snapshotKey(index: IndexStore): string {
  return index.catalogAddress.slice(-16);
}

export function textResult(text: string, structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Look a model up; an unknown id is recorded for the next index run and answered with a fix. */
export async function findModel(ctx: ToolContext, id: string): Promise<IndexedModel> {
  const index = ctx.deps.index();
  const trimmed = id
    .trim()
    .replace(/^https?:\/\/[^/]+\//, '')
    .replace(/\/+$/, '');
  const m = await index.model(trimmed);
  if (m) return m;
  // Recorded for the next index run only when it looks like an id the run could look up (as the model-host dialect does).
  const recordable = recordMissing(ctx.deps, trimmed);
  const words = trimmed
    .toLowerCase()
    .split(/[/\s_-]+/)
    .filter((w) => w.length > 2);
  // Near ids: listed models whose id holds the longest word (one page of a search, not a walk over the index).
  const near: string[] = [];
  for (const word of words.slice(0, 4)) {
    for (const x of (await index.search({ search: word, listed: true }, 0, 5)).models) if (!near.includes(x.id)) near.push(x.id);
  }
  near.splice(5);
  const why = recordable ? ' The request was recorded for the next index run.' : ' Model ids have the form owner/name.';
  throw new ToolError(
    `No model "${trimmed}" in today's index (${index.snapshot}).${why} Fix: ${near.length ? `use one of ${near.join(', ')}, or ` : ''}find the id with hub_repo_search {"query": "…"}.`,
  );
}

export function rowFacts(m: IndexedModel): string[] {
  const parts: string[] = [];
  if (m.row.pipeline_tag) parts.push(m.row.pipeline_tag);
  if (m.row.library_name) parts.push(m.row.library_name);
  const params = m.row.svc.parameters ?? m.object.facts.parameters;
  if (params) parts.push(`${humanCount(params)} params`);
  if (m.row.downloads !== undefined) parts.push(`${humanCount(m.row.downloads)} downloads`);
  if (m.row.likes !== undefined) parts.push(`${humanCount(m.row.likes)} likes`);
  parts.push(`${m.files.length} files, ${formatBytes(m.files.reduce((n, f) => n + f.size, 0))}`);
  return parts;
}

export function sourcesOf(m: IndexedModel): string[] {
  return m.row.svc.sources ?? [];
}

/** The GGUF quantisations of a model: quant → its files (split parts included), projector files left out. */
export function quantFiles(m: IndexedModel): Map<string, IndexedModel['files']> {
  const out = new Map<string, IndexedModel['files']>();
  for (const f of m.files) {
    if (isMmproj(f.path)) continue;
    const q = quantOf(f.path);
    if (!q) continue;
    let list = out.get(q);
    if (!list) {
      list = [];
      out.set(q, list);
    }
    list.push(f);
  }
  return out;
}

/** The default quantisation of a model's quantisations, by the one rule `ollama pull …:latest` uses (core-index). */
export function defaultQuant(quants: Map<string, Array<{ path: string }>>): string | undefined {
  return coreDefaultQuant([...quants.values()].flat().map((f) => f.path));
}

export function resolveUrl(origin: string, m: IndexedModel, path: string): string {
  return `${origin}/${m.id}/resolve/${m.revision}/${encodePath(path)}`;
}

export function pageFooter(next: string | null, tool: string, shown: number, total: number, offset: number): string {
  if (next === null) return offset > 0 ? `\n(${offset + 1}–${offset + shown} of ${total}; end of the listing)` : '';
  return `\n(${offset + 1}–${offset + shown} of ${total}, cut to stay agent-sized. More: call ${tool} again with the same arguments and "cursor": "${next}")`;
}
