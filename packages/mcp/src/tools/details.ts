/** hub_repo_details and its legacy alias model_details. */
import type { IndexedModel } from '@hub/core-index';
import { formatBytes } from '@hub/core-index';
import { type Block, decodeCursor, encodeCursor, page } from '../paging.js';
import * as z from '../zod.js';
import {
  cursorArg,
  DETAIL_OPERATIONS,
  defaultQuant,
  findModel,
  pageFooter,
  quantFiles,
  rowFacts,
  snapshotKey,
  sourcesOf,
  type ToolContext,
  type ToolDef,
  ToolError,
  type ToolResult,
  textResult,
} from './shared.js';

type Operation = (typeof DETAIL_OPERATIONS)[number];

interface DetailItem {
  model: string;
  kind: Operation | 'missing';
  data: Record<string, unknown>;
}

async function detailBlocks(
  ctx: ToolContext,
  ids: string[],
  operations: Operation[],
): Promise<{ blocks: Block<DetailItem>[]; missing: string[] }> {
  const blocks: Block<DetailItem>[] = [];
  const missing: string[] = [];
  const health = ctx.deps.health;
  for (const id of ids) {
    let m: IndexedModel;
    try {
      m = await findModel(ctx, id);
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
        const sig = m.object.signature;
        if (sig)
          lines.push(
            `model.sig: ${sig.status}${sig.identity ? ` by ${sig.identity}` : ''}${sig.issuer ? ` (${sig.issuer})` : ''} · identity, not safety`,
          );
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
              signature: m.object.signature ?? null,
            },
          },
        });
      } else if (op === 'files') {
        blocks.push({ text: `### ${m.id}: ${m.files.length} files`, item: { model: m.id, kind: 'files', data: {} } });
        for (const f of m.files) {
          blocks.push({
            text: `- ${f.path} · ${formatBytes(f.size)} · sha256 ${f.sha256}`,
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
            text: `- ${q} · ${formatBytes(size)} · ${files.map((f) => f.path).join(', ')}`,
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
  const { blocks, missing } = await detailBlocks(ctx, args.repo_ids, operations);
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

export const hubRepoDetails: ToolDef = {
  name: 'hub_repo_details',
  title: 'Model details',
  description:
    'Details of 1–10 models: overview (revision, license, task, size, quantisations, sources), files (path, size, SHA-256), quants (GGUF quantisations) and sources (where the bytes live, with health). Long answers are cut with a cursor.',
  input: detailsInput,
  example: '{"repo_ids": ["owner/name"], "operations": ["overview", "files"]}',
  run: (args, ctx) => runDetails('hub_repo_details', args, ctx),
};

export const modelDetails: ToolDef = {
  name: 'model_details',
  title: 'Model details (legacy name)',
  description: 'Alias of hub_repo_details for one model: its overview and GGUF quantisations.',
  input: modelDetailsInput,
  example: '{"model_id": "owner/name"}',
  run: (args: { model_id: string; cursor?: string }, ctx) =>
    runDetails('model_details', { repo_ids: [args.model_id], operations: ['overview', 'quants'], limit: 200, cursor: args.cursor }, ctx),
};
