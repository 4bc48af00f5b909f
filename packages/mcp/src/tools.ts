import {
  type CoreDeps,
  encodePath,
  type IndexedModel,
  type IndexStore,
  isMmproj,
  QUANT_PREFERENCE,
  quantOf,
  readArchive,
  type SortKey,
  searchModels,
} from '@hub/core-index';
import { z } from 'zod';
import { type Block, CursorError, decodeCursor, encodeCursor, humanBytes, humanCount, page } from './paging.js';

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

const SEARCH_SORTS = ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified'] as const;
const DETAIL_OPERATIONS = ['overview', 'files', 'quants', 'sources'] as const;

const cursorArg = z
  .string()
  .max(1000)
  .optional()
  .describe('next_cursor from the previous answer of this tool, to continue a listing that was cut');

// ---- shared helpers ---------------------------------------------------------------------------

function snapshotKey(index: IndexStore): string {
  return index.catalogAddress.slice(-16);
}

function textResult(text: string, structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function isListed(m: IndexedModel): boolean {
  return m.row.svc.listed !== false;
}

/** Look a model up; an unknown id is recorded for the next index run and answered with a fix. */
function findModel(ctx: ToolContext, id: string): IndexedModel {
  const index = ctx.deps.index();
  const trimmed = id
    .trim()
    .replace(/^https?:\/\/[^/]+\//, '')
    .replace(/\/+$/, '');
  const m = index.model(trimmed);
  if (m) return m;
  // Recorded for the next index run only when it looks like an id the run could look up (as the model-host dialect does).
  const recordable = /^[A-Za-z0-9_.-]{1,96}\/[A-Za-z0-9_.-]{1,96}$/.test(trimmed);
  if (recordable) {
    const r = ctx.deps.missing.record(trimmed);
    if (r && typeof (r as Promise<void>).then === 'function') ctx.deps.defer(r as Promise<void>);
  }
  const words = trimmed
    .toLowerCase()
    .split(/[/\s_-]+/)
    .filter((w) => w.length > 2);
  const near = index
    .models()
    .filter((x) => isListed(x) && words.some((w) => x.id.toLowerCase().includes(w)))
    .slice(0, 5)
    .map((x) => x.id);
  const why = recordable ? ' The request was recorded for the next index run.' : ' Model ids have the form owner/name.';
  throw new ToolError(
    `No model "${trimmed}" in today's index (${index.snapshot}).${why} Fix: ${near.length ? `use one of ${near.join(', ')}, or ` : ''}find the id with hub_repo_search {"query": "…"}.`,
  );
}

function rowFacts(m: IndexedModel): string[] {
  const parts: string[] = [];
  if (m.row.pipeline_tag) parts.push(m.row.pipeline_tag);
  if (m.row.library_name) parts.push(m.row.library_name);
  const params = m.row.svc.parameters ?? m.object.facts.parameters;
  if (params) parts.push(`${humanCount(params)} params`);
  if (m.row.downloads !== undefined) parts.push(`${humanCount(m.row.downloads)} downloads`);
  if (m.row.likes !== undefined) parts.push(`${humanCount(m.row.likes)} likes`);
  parts.push(`${m.files.length} files, ${humanBytes(m.files.reduce((n, f) => n + f.size, 0))}`);
  return parts;
}

function sourcesOf(m: IndexedModel): string[] {
  return m.row.svc.sources ?? [];
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
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

function defaultQuant(quants: Map<string, unknown>): string | undefined {
  for (const q of QUANT_PREFERENCE) if (quants.has(q)) return q;
  return quants.keys().next().value;
}

function resolveUrl(origin: string, m: IndexedModel, path: string): string {
  return `${origin}/${m.id}/resolve/${m.revision}/${encodePath(path)}`;
}

function pageFooter(next: string | null, tool: string, shown: number, total: number, offset: number): string {
  if (next === null) return offset > 0 ? `\n(${offset + 1}–${offset + shown} of ${total}; end of the listing)` : '';
  return `\n(${offset + 1}–${offset + shown} of ${total}, cut to stay agent-sized. More: call ${tool} again with the same arguments and "cursor": "${next}")`;
}

// ---- search -----------------------------------------------------------------------------------

interface SearchArgs {
  query?: string;
  repo_types?: string[];
  author?: string;
  filters?: string[];
  task?: string;
  library?: string;
  sort?: (typeof SEARCH_SORTS)[number];
  limit: number;
  cursor?: string;
}

async function runSearch(tool: string, args: SearchArgs, ctx: ToolContext): Promise<ToolResult> {
  if (args.repo_types && !args.repo_types.includes('model')) {
    throw new ToolError('This hub indexes models only, not datasets or spaces. Fix: leave repo_types out or include "model".');
  }
  const index = ctx.deps.index();
  const offset = decodeCursor(args.cursor, tool, snapshotKey(index), args as unknown as Record<string, unknown>);
  const found = searchModels(index, {
    search: args.query,
    author: args.author,
    filter: args.filters,
    pipeline_tag: args.task,
    library: args.library,
    sort: args.sort as SortKey | undefined,
  }).filter(isListed);
  const blocks: Block<Record<string, unknown>>[] = found.map((m, i) => ({
    text: `${i + 1}. **${m.id}** — ${rowFacts(m).join(' · ')}${sourcesOf(m).length ? ` · sources: ${sourcesOf(m).join(', ')}` : ''}`,
    item: {
      id: m.id,
      sha: m.revision,
      pipeline_tag: m.row.pipeline_tag ?? null,
      library_name: m.row.library_name ?? null,
      downloads: m.row.downloads ?? null,
      likes: m.row.likes ?? null,
      trendingScore: m.row.trendingScore ?? null,
      parameters: m.row.svc.parameters ?? null,
      context: m.row.svc.context ?? null,
      files: m.files.length,
      weight_bytes: m.weightBytes,
      sources: sourcesOf(m),
      tags: m.row.tags ?? [],
      api: `${ctx.origin}/api/models/${m.id}`,
    },
  }));
  const p = page(blocks, offset, args.limit);
  const next = p.next === null ? null : encodeCursor(tool, p.next, snapshotKey(index), args as unknown as Record<string, unknown>);
  const criteria = [
    args.query && `query "${args.query}"`,
    args.author && `author ${args.author}`,
    args.task && `task ${args.task}`,
    args.library && `library ${args.library}`,
    args.filters?.length && `tags ${args.filters.join(', ')}`,
  ].filter(Boolean);
  const head =
    found.length === 0
      ? `No models match ${criteria.join(', ') || 'that search'} in today's index (${index.snapshot}, ${index.totals.models} models). Try fewer words, or sort by downloads without a query.`
      : `${found.length} model${found.length === 1 ? '' : 's'} match${criteria.length ? ` ${criteria.join(', ')}` : ''} (index ${index.snapshot}, sorted by ${args.sort ?? 'trendingScore'}). Next: hub_repo_details for files and quantisations, get_download for a URL and SHA-256.\n`;
  const text = [head, ...p.shown.map((b) => b.text)].join('\n') + pageFooter(next, tool, p.shown.length, p.total, offset);
  return textResult(text, {
    total: found.length,
    offset,
    returned: p.shown.length,
    next_cursor: next,
    snapshot: index.snapshot,
    models: p.shown.map((b) => b.item),
  });
}

const searchInput = z.object({
  query: z.string().max(200).optional().describe('Words that must all appear in the model id, e.g. "llama gguf".'),
  repo_types: z
    .array(z.enum(['model', 'dataset', 'space']))
    .min(1)
    .max(3)
    .optional()
    .describe('Accepted for compatibility; this hub indexes models only.'),
  author: z.string().max(100).optional().describe('The owner, e.g. "meta-llama".'),
  filters: z.array(z.string().max(100)).max(20).optional().describe('Tags that must all be present, e.g. ["gguf", "text-generation"].'),
  task: z.string().max(100).optional().describe('Pipeline tag, e.g. "text-generation".'),
  library: z.string().max(100).optional().describe('Library, e.g. "transformers" or "gguf".'),
  sort: z.enum(SEARCH_SORTS).optional().describe('Always descending; default trendingScore.'),
  limit: z.number().int().min(1).max(100).default(20).describe('Rows per answer, 1–100 (default 20).'),
  cursor: cursorArg,
});

const modelSearchInput = z.object({
  query: z.string().max(200).optional().describe('Words that must all appear in the model id.'),
  author: z.string().max(100).optional(),
  task: z.string().max(100).optional().describe('Pipeline tag, e.g. "text-generation".'),
  library: z.string().max(100).optional(),
  sort: z.enum(SEARCH_SORTS).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  cursor: cursorArg,
});

// ---- details ----------------------------------------------------------------------------------

type Operation = (typeof DETAIL_OPERATIONS)[number];

interface DetailItem {
  model: string;
  kind: Operation | 'missing';
  data: Record<string, unknown>;
}

function detailBlocks(ctx: ToolContext, ids: string[], operations: Operation[]): { blocks: Block<DetailItem>[]; missing: string[] } {
  const blocks: Block<DetailItem>[] = [];
  const missing: string[] = [];
  const health = ctx.deps.health;
  for (const id of ids) {
    let m: IndexedModel;
    try {
      m = findModel(ctx, id);
    } catch (e) {
      missing.push(id);
      blocks.push({
        text: `## ${id}\n${(e as Error).message}`,
        item: { model: id, kind: 'missing', data: { error: (e as Error).message } },
      });
      continue;
    }
    const quants = quantFiles(m);
    for (const op of operations) {
      if (op === 'overview') {
        const facts = m.object.facts;
        const lines = [`## ${m.id}`, `revision ${m.revision} · license ${m.object.license ?? 'unknown'} · ${rowFacts(m).join(' · ')}`];
        if (facts.context ?? m.row.svc.context) lines.push(`context ${facts.context ?? m.row.svc.context} tokens`);
        if (m.row.tags?.length) lines.push(`tags: ${m.row.tags.slice(0, 20).join(', ')}`);
        if (quants.size)
          lines.push(
            `GGUF quantisations: ${[...quants.keys()].join(', ')} (default ${defaultQuant(quants)}) → get_download {"model": "${m.id}", "quant": "…"}`,
          );
        if (sourcesOf(m).length) lines.push(`sources: ${sourcesOf(m).join(', ')}`);
        lines.push(`api: ${ctx.origin}/api/models/${m.id} · object: ${m.address}`);
        blocks.push({
          text: lines.join('\n'),
          item: {
            model: m.id,
            kind: 'overview',
            data: {
              id: m.id,
              revision: m.revision,
              license: m.object.license,
              pipeline_tag: m.row.pipeline_tag ?? facts.pipeline_tag ?? null,
              library_name: m.row.library_name ?? facts.library_name ?? null,
              parameters: m.row.svc.parameters ?? facts.parameters ?? null,
              context: m.row.svc.context ?? facts.context ?? null,
              downloads: m.row.downloads ?? null,
              likes: m.row.likes ?? null,
              tags: m.row.tags ?? [],
              file_count: m.files.length,
              bytes: m.files.reduce((n, f) => n + f.size, 0),
              weight_bytes: m.weightBytes,
              quants: [...quants.keys()],
              sources: sourcesOf(m),
              address: m.address,
              gguf: facts.gguf ?? [],
            },
          },
        });
      } else if (op === 'files') {
        blocks.push({ text: `### ${m.id}: ${m.files.length} files`, item: { model: m.id, kind: 'files', data: {} } });
        for (const f of m.files) {
          blocks.push({
            text: `- ${f.path} · ${humanBytes(f.size)} · sha256 ${f.sha256}`,
            item: { model: m.id, kind: 'files', data: { path: f.path, size: f.size, sha256: f.sha256 } },
          });
        }
      } else if (op === 'quants') {
        if (!quants.size) {
          blocks.push({ text: `### ${m.id}: no GGUF quantisations (not a GGUF model)`, item: { model: m.id, kind: 'quants', data: {} } });
          continue;
        }
        blocks.push({ text: `### ${m.id}: GGUF quantisations`, item: { model: m.id, kind: 'quants', data: {} } });
        for (const [q, files] of quants) {
          const size = files.reduce((n, f) => n + f.size, 0);
          blocks.push({
            text: `- ${q} · ${humanBytes(size)} · ${files.map((f) => f.path).join(', ')}`,
            item: { model: m.id, kind: 'quants', data: { quant: q, size, files: files.map((f) => f.path) } },
          });
        }
      } else {
        blocks.push({ text: `### ${m.id}: sources`, item: { model: m.id, kind: 'sources', data: {} } });
        const snapshot = health.snapshot();
        for (const s of m.sources) {
          const state = snapshot.sources[s.source];
          const holds = s.paths ? `${s.paths.length} of ${m.files.length} files` : 'every file';
          const status = state
            ? `${state.ok ? 'ok' : 'down'}${state.reason ? ` (${state.reason})` : ''}, checked ${state.checked ?? 'never'}`
            : 'not configured here';
          blocks.push({
            text: `- ${health.display(s.source)} [${s.source}] · ${s.type} · holds ${holds} · ${status}`,
            item: {
              model: m.id,
              kind: 'sources',
              data: {
                source: s.source,
                display: health.display(s.source),
                type: s.type,
                paths: s.paths ?? null,
                ok: state?.ok ?? null,
                checked: state?.checked ?? null,
                reason: state?.reason ?? null,
              },
            },
          });
        }
      }
    }
  }
  return { blocks, missing };
}

/** Where each operation's rows go in a model's structured entry (the overview keeps `quants` and `sources` as names). */
const LIST_KEYS: Record<Exclude<Operation, 'overview'>, string> = { files: 'files', quants: 'quant_files', sources: 'source_health' };

/** Group the detail items of one page back into one object per model. */
function groupDetails(items: DetailItem[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const byModel = new Map<string, Record<string, unknown>>();
  for (const it of items) {
    let entry = byModel.get(it.model);
    if (!entry) {
      entry = { id: it.model };
      byModel.set(it.model, entry);
      out.push(entry);
    }
    if (it.kind === 'missing') entry.error = it.data.error;
    else if (it.kind === 'overview') Object.assign(entry, it.data);
    else if (Object.keys(it.data).length) {
      const key = LIST_KEYS[it.kind];
      const list = (entry[key] as unknown[] | undefined) ?? [];
      list.push(it.data);
      entry[key] = list;
    }
  }
  return out;
}

interface DetailsArgs {
  repo_ids: string[];
  repo_type?: string;
  operations?: Operation[];
  limit: number;
  cursor?: string;
}

async function runDetails(tool: string, args: DetailsArgs, ctx: ToolContext): Promise<ToolResult> {
  if (args.repo_type && args.repo_type !== 'model') {
    throw new ToolError('This hub indexes models only. Fix: leave repo_type out or set it to "model".');
  }
  const index = ctx.deps.index();
  const offset = decodeCursor(args.cursor, tool, snapshotKey(index), args as unknown as Record<string, unknown>);
  const operations: Operation[] = [...new Set<Operation>(args.operations ?? ['overview'])];
  const { blocks, missing } = detailBlocks(ctx, args.repo_ids, operations);
  if (missing.length === args.repo_ids.length) {
    throw new ToolError(blocks.map((b) => (b.item.data.error as string) ?? '').join('\n'));
  }
  const p = page(blocks, offset, args.limit);
  const next = p.next === null ? null : encodeCursor(tool, p.next, snapshotKey(index), args as unknown as Record<string, unknown>);
  const text = p.shown.map((b) => b.text).join('\n') + pageFooter(next, tool, p.shown.length, p.total, offset);
  return textResult(text, { snapshot: index.snapshot, offset, next_cursor: next, models: groupDetails(p.shown.map((b) => b.item)) });
}

const detailsInput = z.object({
  repo_ids: z.array(z.string().min(3).max(200)).min(1).max(10).describe('1–10 model ids, e.g. ["owner/name"].'),
  repo_type: z.enum(['model', 'dataset', 'space']).optional().describe('Accepted for compatibility; only "model" is indexed.'),
  operations: z
    .array(z.enum(DETAIL_OPERATIONS))
    .min(1)
    .optional()
    .describe(
      'What to show: overview (default), files (path, size, sha256), quants (GGUF quantisations), sources (where the bytes live, and their health).',
    ),
  limit: z.number().int().min(1).max(500).default(200).describe('Most lines per answer (default 200); the text is also cut at 8 KB.'),
  cursor: cursorArg,
});

const modelDetailsInput = z.object({
  model_id: z.string().min(3).max(200).describe('A model id, e.g. "owner/name".'),
  cursor: cursorArg,
});

// ---- download ---------------------------------------------------------------------------------

interface DownloadArgs {
  model: string;
  path?: string;
  quant?: string;
  via?: string;
  cursor?: string;
}

async function runDownload(args: DownloadArgs, ctx: ToolContext): Promise<ToolResult> {
  let modelId = args.model.trim();
  let quant = args.quant?.trim();
  // `owner/name:Q4_K_M`, the way llama.cpp and Ollama name a quantisation.
  const colon = /^([^/\s:]+\/[^/\s:]+):([A-Za-z0-9_.-]+)$/.exec(modelId);
  if (colon) {
    modelId = colon[1] as string;
    quant ??= colon[2];
  }
  if (args.path && quant)
    throw new ToolError(
      'Give either path or quant, not both. Fix: drop quant to fetch one exact file, or drop path to fetch a quantisation.',
    );
  const m = findModel(ctx, modelId);
  const quants = quantFiles(m);
  let files: IndexedModel['files'];
  let picked: string | undefined;
  let note = '';
  if (args.path) {
    const wanted = args.path.replace(/^\/+/, '');
    const f = m.file(wanted);
    if (!f) {
      const base = wanted.split('/').pop()?.toLowerCase() ?? '';
      const near = m.files.filter((x) => x.path.toLowerCase().includes(base.slice(0, 8))).slice(0, 8);
      throw new ToolError(
        `${m.id} has no file "${wanted}" at revision ${m.revision}. Fix: use one of ${(near.length ? near : m.files.slice(0, 8)).map((x) => x.path).join(', ')}${
          m.files.length > 8 ? ` (all ${m.files.length}: hub_repo_details {"repo_ids": ["${m.id}"], "operations": ["files"]})` : ''
        }.`,
      );
    }
    files = [f];
  } else if (quant) {
    const q = [...quants.keys()].find((k) => k.toLowerCase() === (quant as string).toLowerCase());
    if (!q) {
      throw new ToolError(
        quants.size
          ? `${m.id} has no ${quant} file. Fix: use quant ${[...quants.keys()].join(', ')}, or a path from hub_repo_details {"repo_ids": ["${m.id}"], "operations": ["files"]}.`
          : `${m.id} is not a GGUF model, so it has no quantisations. Fix: leave quant out to get every file, or pass a path (see hub_repo_details with operations ["files"]).`,
      );
    }
    picked = q;
    files = quants.get(q) ?? [];
  } else if (quants.size) {
    picked = defaultQuant(quants);
    files = quants.get(picked as string) ?? [];
    if (quants.size > 1)
      note = `Default quantisation ${picked}; others: ${[...quants.keys()].filter((q) => q !== picked).join(', ')} (pass "quant").`;
  } else {
    files = m.files;
  }
  const index = ctx.deps.index();
  const offset = decodeCursor(args.cursor, 'get_download', snapshotKey(index), args as unknown as Record<string, unknown>);
  const blocks: Block<Record<string, unknown>>[] = files.map((f) => {
    const choice = ctx.deps.health.choose({ id: m.id, revision: m.revision, path: f.path, sources: m.sources, via: args.via });
    const url = resolveUrl(ctx.origin, m, f.path);
    const source = choice.ok ? { name: choice.choice.source, display: choice.choice.display, url: choice.choice.url } : null;
    const why = choice.ok
      ? `${choice.choice.display} (${choice.choice.source})`
      : choice.reason === 'none-ok'
        ? `none live now (held by ${choice.holders.join(', ')}; the URL answers 503 until one passes a probe, see ${ctx.origin}/api/hub/health)`
        : 'no source holds this file';
    const download = `curl -fL --create-dirs -o ${shellQuote(f.path)} ${shellQuote(url)}`;
    const verify = `echo ${shellQuote(`${f.sha256}  ${f.path}`)} | sha256sum -c`;
    // the hub's own verifying client: download, hash while it arrives, move to another source on a bad byte
    const hub = `hub get ${shellQuote(m.id)} ${shellQuote(f.path)} --hub ${shellQuote(ctx.origin)}`;
    const lines = [
      `### ${f.path}${quantOf(f.path) ? ` (${quantOf(f.path)})` : ''}`,
      `URL: ${url}`,
      `SHA-256: ${f.sha256}`,
      `Size: ${f.size} bytes (${humanBytes(f.size)})`,
      `Source now: ${why}`,
      '```sh',
      download,
      verify,
      `# or, download and verify in one step (switches source on a wrong byte or a stall):\n${hub}`,
      '```',
    ];
    return {
      text: lines.join('\n'),
      item: { path: f.path, size: f.size, sha256: f.sha256, url, quant: quantOf(f.path) ?? null, source, commands: { download, verify, hub } },
    };
  });
  // Download answers are listed whole up to the text limit; a many-file model continues with the cursor.
  const p = page(blocks, offset, 100);
  const next =
    p.next === null ? null : encodeCursor('get_download', p.next, snapshotKey(index), args as unknown as Record<string, unknown>);
  const head = [
    `${m.id} @ ${m.revision}${picked ? ` · ${picked}` : ''} · ${files.length} file${files.length === 1 ? '' : 's'}, ${humanBytes(files.reduce((n, f) => n + f.size, 0))}`,
    'The URL redirects to a live source; the SHA-256 comes from the index, never from the source. `sha256sum -c` must print OK (macOS: use `shasum -a 256 -c`); if it prints FAILED, delete the file.',
  ];
  if (note) head.push(note);
  if (files.length > 1)
    head.push(
      `Every checksum at once: curl -fsL ${shellQuote(`${ctx.origin}/${m.id}/resolve/${m.revision}/SHA256SUMS`)} | sha256sum -c --ignore-missing`,
    );
  const text = `${head.join('\n')}\n\n${p.shown.map((b) => b.text).join('\n')}${pageFooter(next, 'get_download', p.shown.length, p.total, offset)}`;
  return textResult(text, {
    model: m.id,
    revision: m.revision,
    quant: picked ?? null,
    total: files.length,
    offset,
    next_cursor: next,
    files: p.shown.map((b) => b.item),
  });
}

const downloadInput = z.object({
  model: z.string().min(3).max(200).describe('Model id "owner/name" (or "owner/name:QUANT").'),
  path: z.string().min(1).max(500).optional().describe('One exact file path in the model.'),
  quant: z.string().min(1).max(40).optional().describe('A GGUF quantisation such as Q4_K_M; its split parts are included.'),
  via: z.string().max(100).optional().describe('Prefer this source token when it holds the file (as /via/{token}/ does).'),
  cursor: cursorArg,
});

// ---- health and archive -------------------------------------------------------------------------

async function runHealth(_args: Record<string, never>, ctx: ToolContext): Promise<ToolResult> {
  const snap = ctx.deps.health.snapshot();
  const names = Object.keys(snap.sources);
  const lines = [
    `Sources in preference order: ${snap.order.join(' → ') || '(none configured)'}. A download goes to the first one that is ok and holds the file.`,
    ...names.map((n) => {
      const s = snap.sources[n];
      return `- ${ctx.deps.health.display(n)} [${n}]: ${s?.ok ? 'ok' : 'down'}${s?.reason ? ` (${s.reason})` : ''} · last reached ${s?.checked ?? 'never probed'}`;
    }),
    `Live view: ${ctx.origin}/api/hub/health`,
  ];
  return textResult(lines.join('\n'), { ...snap } as Record<string, unknown>);
}

interface ArchiveArgs {
  limit: number;
  cursor?: string;
}

async function runArchive(args: ArchiveArgs, ctx: ToolContext): Promise<ToolResult> {
  const index = ctx.deps.index();
  const archive = await readArchive(ctx.deps.objects);
  const offset = decodeCursor(args.cursor, 'hub_archive', snapshotKey(index), args as unknown as Record<string, unknown>);
  const blocks: Block<Record<string, unknown>>[] = archive.days.map((d) => ({
    text: `- ${d.date} · catalog ${d.catalog ?? d.index}${d.models !== undefined ? ` · ${d.models} models` : ''}${d.files !== undefined ? ` · ${d.files} files` : ''}${
      d.bytes !== undefined ? ` · ${humanBytes(d.bytes)}` : ''
    }`,
    item: { ...d },
  }));
  const p = page(blocks, offset, args.limit);
  const next = p.next === null ? null : encodeCursor('hub_archive', p.next, snapshotKey(index), args as unknown as Record<string, unknown>);
  const head = [
    `${archive.days.length} archived day${archive.days.length === 1 ? '' : 's'}, newest first. Each catalog is a hub object: GET ${ctx.origin}/api/v1/objects/{catalog} (or the resource hub://catalog/{catalog}); hashing its bytes with BLAKE3 gives the address back.`,
  ];
  if (archive.registry) head.push(`OCI archive repository: ${archive.registry}`);
  if (archive.gateway) head.push(`IPFS gateway: ${archive.gateway}`);
  const text = `${head.join('\n')}\n${p.shown.map((b) => b.text).join('\n')}${pageFooter(next, 'hub_archive', p.shown.length, p.total, offset)}`;
  return textResult(text, {
    format: archive.format ?? 'svc.model-hub.archive/v1',
    total: archive.days.length,
    offset,
    next_cursor: next,
    days: p.shown.map((b) => b.item),
    ...(archive.registry ? { registry: archive.registry } : {}),
    ...(archive.gateway ? { gateway: archive.gateway } : {}),
  });
}

const archiveInput = z.object({
  limit: z.number().int().min(1).max(100).default(10).describe('Days per answer, 1–100 (default 10).'),
  cursor: cursorArg,
});

// ---- the table --------------------------------------------------------------------------------

const SEARCH_DESCRIPTION =
  "Search today's index of open models by words in the id, author, tags, task and library. Answers one line per model (task, library, size, downloads, sources), cut at `limit` rows or 8 KB with a cursor to continue.";

export const TOOLS: ToolDef[] = [
  {
    name: 'hub_repo_search',
    title: 'Search models',
    description: SEARCH_DESCRIPTION,
    input: searchInput,
    example: '{"query": "llama gguf", "sort": "downloads", "limit": 10}',
    run: (args, ctx) => runSearch('hub_repo_search', args, ctx),
  },
  {
    name: 'hub_repo_details',
    title: 'Model details',
    description:
      'Details of 1–10 models: overview (revision, license, task, size, quantisations, sources), files (path, size, SHA-256), quants (GGUF quantisations) and sources (where the bytes live, with health). Long answers are cut with a cursor.',
    input: detailsInput,
    example: '{"repo_ids": ["owner/name"], "operations": ["overview", "files"]}',
    run: (args, ctx) => runDetails('hub_repo_details', args, ctx),
  },
  {
    name: 'model_search',
    title: 'Search models (legacy name)',
    description: `Alias of hub_repo_search with the older argument names (task and library). ${SEARCH_DESCRIPTION}`,
    input: modelSearchInput,
    example: '{"query": "bert", "task": "fill-mask", "limit": 5}',
    run: (args, ctx) => runSearch('model_search', args, ctx),
  },
  {
    name: 'model_details',
    title: 'Model details (legacy name)',
    description: 'Alias of hub_repo_details for one model: its overview and GGUF quantisations.',
    input: modelDetailsInput,
    example: '{"model_id": "owner/name"}',
    run: (args: { model_id: string; cursor?: string }, ctx) =>
      runDetails('model_details', { repo_ids: [args.model_id], operations: ['overview', 'quants'], limit: 200, cursor: args.cursor }, ctx),
  },
  {
    name: 'get_download',
    title: 'Download URL and checksum',
    description:
      'For a model and a file path or GGUF quantisation (default: the usual Q4_K_M, or every file of a non-GGUF model): the URL on this hub, the SHA-256 and size from the index, the source a download goes to right now, and the exact commands to download (curl -L) and verify (sha256sum -c).',
    input: downloadInput,
    example: '{"model": "owner/name", "quant": "Q4_K_M"}',
    run: (args, ctx) => runDownload(args, ctx),
  },
  {
    name: 'hub_health',
    title: 'Source health',
    description:
      'Which byte sources passed their last probe, when they were last reached, and the order downloads try them in. Takes no arguments.',
    input: z.object({}).strict(),
    example: '{}',
    run: (args, ctx) => runHealth(args, ctx),
  },
  {
    name: 'hub_archive',
    title: 'Index archive',
    description:
      "Every archived day of the index, newest first: the day's catalog address (a BLAKE3 content address), model, file and byte counts.",
    input: archiveInput,
    example: '{"limit": 5}',
    run: (args, ctx) => runArchive(args, ctx),
  },
];

export const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t] as const));

/** Run a tool with arguments already validated; tool errors become `isError` results naming the fix. */
export async function callTool(tool: ToolDef, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return await tool.run(args, ctx);
  } catch (e) {
    if (e instanceof ToolError || e instanceof CursorError) return errorResult(e.message);
    ctx.deps.log.error({ err: { message: (e as Error)?.message }, tool: tool.name }, 'mcp tool failed');
    return errorResult(`${tool.name} failed inside the hub; it has been logged. Fix: try again, or check ${ctx.origin}/api/hub/health.`);
  }
}

/** An `isError` answer for arguments that do not match the tool's schema, naming each problem and a good call. */
export function argumentError(tool: ToolDef, error: z.ZodError): ToolResult {
  const problems = error.issues.slice(0, 6).map((i) => `${i.path.length ? `\`${i.path.join('.')}\`` : 'arguments'}: ${i.message}`);
  return errorResult(`Invalid arguments for ${tool.name}: ${problems.join('; ')}. Fix: call it like ${tool.name} ${tool.example}.`);
}
