/** hub_archive: every archived day of the index. */
import { formatBytes, readArchive } from '@hub/core-index';
import { type Block, decodeCursor, encodeCursor, page } from '../paging.js';
import * as z from '../zod.js';
import { cursorArg, pageFooter, snapshotKey, type ToolContext, type ToolDef, type ToolResult, textResult } from './shared.js';

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
      d.bytes !== undefined ? ` · ${formatBytes(d.bytes)}` : ''
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

export const hubArchive: ToolDef = {
  name: 'hub_archive',
  title: 'Index archive',
  description:
    "Every archived day of the index, newest first: the day's catalog address (a BLAKE3 content address), model, file and byte counts.",
  input: archiveInput,
  example: '{"limit": 5}',
  run: (args, ctx) => runArchive(args, ctx),
};
