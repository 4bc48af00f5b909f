/** hub_repo_search and its legacy alias model_search. */
import type { SortKey } from '@hub/core-index';
import { type Block, decodeCursorAt, encodeCursor, page } from '../paging.js';
import * as z from '../zod.js';
import {
  cursorArg,
  pageFooter,
  rowFacts,
  SEARCH_SORTS,
  snapshotKey,
  sourcesOf,
  type ToolContext,
  type ToolDef,
  ToolError,
  type ToolResult,
  textResult,
} from './shared.js';

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
  const { offset, from } = decodeCursorAt(args.cursor, tool, snapshotKey(index), args as unknown as Record<string, unknown>);
  const query = {
    search: args.query,
    author: args.author,
    filter: args.filters,
    pipeline_tag: args.task,
    library: args.library,
    sort: args.sort as SortKey | undefined,
  };
  // One page of listed models (and one more, to know whether a page follows); the total when the store knows it.
  const got = await index.search({ ...query, listed: true }, offset, args.limit, from);
  const total = got.total ?? offset + got.models.length + (got.more ? 1 : 0);
  // Blocks only for the rows this answer can show (at most `limit` from the offset), not for every match.
  const blocks: Block<Record<string, unknown>>[] = got.models.map((m, k) => ({
    text: `${offset + k + 1}. **${m.id}** — ${rowFacts(m).join(' · ')}${sourcesOf(m).length ? ` · sources: ${sourcesOf(m).join(', ')}` : ''}`,
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
  const p = page(blocks, 0, args.limit);
  // Offsets into the whole answer: where the page stopped, or the first row after the window when it showed it all.
  const stop = offset + (p.next ?? blocks.length);
  const nextOffset = stop < offset + got.models.length || got.more ? stop : null;
  // A page that showed every model of a walk's page goes on from where the walk ended; one cut short by its text
  // budget is asked again by offset (its walk starts over).
  const place = stop === offset + got.models.length ? got.after : undefined;
  const next =
    nextOffset === null ? null : encodeCursor(tool, nextOffset, snapshotKey(index), args as unknown as Record<string, unknown>, place);
  const criteria = [
    args.query && `query "${args.query}"`,
    args.author && `author ${args.author}`,
    args.task && `task ${args.task}`,
    args.library && `library ${args.library}`,
    args.filters?.length && `tags ${args.filters.join(', ')}`,
  ].filter(Boolean);
  const head =
    total === 0
      ? `No models match ${criteria.join(', ') || 'that search'} in today's index (${index.snapshot}, ${index.totals.models} models). Try fewer words, or sort by downloads without a query.`
      : `${got.total === undefined && got.more ? 'At least ' : ''}${total} model${total === 1 ? '' : 's'} match${criteria.length ? ` ${criteria.join(', ')}` : ''} (index ${index.snapshot}, sorted by ${args.sort ?? 'trendingScore'}). Next: hub_repo_details for files and quantisations, get_download for a URL and SHA-256.\n`;
  const text = [head, ...p.shown.map((b) => b.text)].join('\n') + pageFooter(next, tool, p.shown.length, total, offset);
  return textResult(text, {
    total,
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

const SEARCH_DESCRIPTION =
  "Search today's index of open models by words in the id, author, tags, task and library. Answers one line per model (task, library, size, downloads, sources), cut at `limit` rows or 8 KB with a cursor to continue.";

export const hubRepoSearch: ToolDef = {
  name: 'hub_repo_search',
  title: 'Search models',
  description: SEARCH_DESCRIPTION,
  input: searchInput,
  example: '{"query": "llama gguf", "sort": "downloads", "limit": 10}',
  run: (args, ctx) => runSearch('hub_repo_search', args, ctx),
};

export const modelSearch: ToolDef = {
  name: 'model_search',
  title: 'Search models (legacy name)',
  description: `Alias of hub_repo_search with the older argument names (task and library). ${SEARCH_DESCRIPTION}`,
  input: modelSearchInput,
  example: '{"query": "bert", "task": "fill-mask", "limit": 5}',
  run: (args, ctx) => runSearch('model_search', args, ctx),
};
