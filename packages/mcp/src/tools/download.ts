/** get_download: the URL, SHA-256 and commands for a file or a GGUF quantisation. */
import { formatBytes, type IndexedModel, policyRefusal, quantOf, shellQuote } from '@hub/core-index';
import { type Block, decodeCursor, encodeCursor, page } from '../paging.js';
import * as z from '../zod.js';
import {
  cursorArg,
  defaultQuant,
  findModel,
  pageFooter,
  quantFiles,
  resolveUrl,
  snapshotKey,
  type ToolContext,
  type ToolDef,
  ToolError,
  type ToolResult,
  textResult,
} from './shared.js';

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
  const m = await findModel(ctx, modelId);
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
  // The serving policy (design 11.2): a refused file gets no URL, as its resolve answers 403 PolicyRefused.
  const refused = files.map((f) => policyRefusal(ctx.deps.settings.policy, m, { path: f.path })).find((r) => r !== undefined);
  if (refused) throw new ToolError(`PolicyRefused: ${refused.message}`);
  const index = ctx.deps.index();
  const offset = decodeCursor(args.cursor, 'get_download', snapshotKey(index), args as unknown as Record<string, unknown>);
  const blocks: Block<Record<string, unknown>>[] = files.map((f) => {
    const choice = ctx.deps.health.choose({
      id: m.id,
      revision: m.revision,
      path: f.path,
      sha256: f.sha256,
      sources: m.sources,
      via: args.via,
      hubOrigin: ctx.origin,
    });
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
      `Size: ${f.size} bytes (${formatBytes(f.size)})`,
      `Source now: ${why}`,
      '```sh',
      download,
      verify,
      `# or, download and verify in one step (switches source on a wrong byte or a stall):\n${hub}`,
      '```',
    ];
    return {
      text: lines.join('\n'),
      item: {
        path: f.path,
        size: f.size,
        sha256: f.sha256,
        url,
        quant: quantOf(f.path) ?? null,
        source,
        commands: { download, verify, hub },
      },
    };
  });
  // Download answers are listed whole up to the text limit; a many-file model continues with the cursor.
  const p = page(blocks, offset, 100);
  const next =
    p.next === null ? null : encodeCursor('get_download', p.next, snapshotKey(index), args as unknown as Record<string, unknown>);
  const head = [
    `${m.id} @ ${m.revision}${picked ? ` · ${picked}` : ''} · ${files.length} file${files.length === 1 ? '' : 's'}, ${formatBytes(files.reduce((n, f) => n + f.size, 0))}`,
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

export const getDownload: ToolDef = {
  name: 'get_download',
  title: 'Download URL and checksum',
  description:
    'For a model and a file path or GGUF quantisation (default: the usual Q4_K_M, or every file of a non-GGUF model): the URL on this hub, the SHA-256 and size from the index, the source a download goes to right now, and the exact commands to download (curl -L) and verify (sha256sum -c).',
  input: downloadInput,
  example: '{"model": "owner/name", "quant": "Q4_K_M"}',
  run: (args, ctx) => runDownload(args, ctx),
};
