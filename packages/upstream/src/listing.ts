import { isModelId, type Logger, putJson } from '@hub/core-index';
import type { UpstreamClient } from './client.js';
import type { RunContext } from './context.js';
import { UpstreamError } from './errors.js';
import { notPublic, repoPath, type UpstreamRow } from './model.js';
import { readJson } from './state.js';
import type { SkippedModel, UpstreamBuildOptions } from './types.js';

/** The run's first phase: the day's listing (trending public models plus the missing log's), kept in the store. */

export const BUILD_LISTING_KIND = 'model-hub.build-listing';

export interface ListedRow {
  row: UpstreamRow;
  listed: boolean;
}

export interface Listing {
  kind: typeof BUILD_LISTING_KIND;
  upstream: string;
  top: number;
  date: string;
  rows: ListedRow[];
  skipped: SkippedModel[];
}

/** Phase 1: the listing, from finished work of the same day or from the upstream. */
export async function listPhase(rc: RunContext): Promise<Listing> {
  rc.progress({ phase: 'list', done: 0, total: rc.top });
  const state = rc.work.state;
  let listing: Listing | undefined = state.listing ? await readJson<Listing>(rc.objects, state.listing) : undefined;
  if (!listing) {
    listing = await listModels(rc.client, rc.upstream, rc.top, rc.date, rc.options, rc.log, (n) =>
      rc.progress({ phase: 'list', done: n, total: rc.top }),
    );
    state.listing = await putJson(rc.objects, BUILD_LISTING_KIND, listing);
    await rc.work.save();
  }
  rc.log.info({ event: 'listed', models: listing.rows.length, skipped: listing.skipped.length }, 'listed models');
  return listing;
}

/** The trending listing (public rows only, `top` of them) plus the missing log's public models. */
async function listModels(
  client: UpstreamClient,
  upstream: string,
  top: number,
  date: string,
  options: UpstreamBuildOptions,
  log: Logger,
  onRow: (n: number) => void,
): Promise<Listing> {
  const rows: ListedRow[] = [];
  const skipped: SkippedModel[] = [];
  const seen = new Set<string>();
  const limit = Math.max(1, Math.min(options.pageSize ?? Math.min(top, 500), 1000));
  // Projection mode (`expand[]`): only the fields the run reads, with the host's GGUF block, lighter than `full=true`
  // (no siblings). The host answers `_id`, `id` and exactly these.
  const first = `${upstream}/api/models?sort=trendingScore&limit=${limit}&${LISTING_EXPAND.map((f) => `expand[]=${f}`).join('&')}`;
  outer: for await (const page of client.pages<UpstreamRow>(first)) {
    for (const row of page) {
      if (rows.length >= top) break outer;
      const id = typeof row?.id === 'string' ? row.id : String(row?.id);
      if (seen.has(id.toLowerCase())) continue;
      seen.add(id.toLowerCase());
      const why = notPublic(row);
      if (why) {
        skipped.push({ id, ...why });
        continue;
      }
      rows.push({ row: slimRow(row), listed: true });
      onRow(rows.length);
    }
    if (page.length === 0) break;
  }
  const missing = (options.missing ?? []).filter((id) => isModelId(id) && !seen.has(id.toLowerCase())).slice(0, options.maxMissing ?? 200);
  for (const id of missing) {
    seen.add(id.toLowerCase());
    try {
      const { value } = await client.json<UpstreamRow>(`${upstream}/api/models/${repoPath(id)}`);
      const row = { ...value, id: typeof value.id === 'string' ? value.id : id };
      const why = notPublic(row);
      if (why) skipped.push({ id, ...why });
      else rows.push({ row: slimRow(row), listed: false });
    } catch (e) {
      if (e instanceof UpstreamError && (e.status === 404 || e.status === 401 || e.status === 403)) {
        // The model host answers 401 for private and for absent repositories alike.
        skipped.push({ id, reason: 'not-found', detail: `asked for (missing log), but the upstream answers ${e.status}` });
        continue;
      }
      log.warn({ event: 'missing-lookup-failed', model: id, err: (e as Error).message }, 'missing-log lookup failed');
    }
  }
  return { kind: BUILD_LISTING_KIND, upstream, top, date, rows, skipped };
}

/** The fields the listing asks for (huggingface_hub's ExpandModelProperty_T names). */
export const LISTING_EXPAND = [
  'sha',
  'private',
  'gated',
  'disabled',
  'downloads',
  'likes',
  'trendingScore',
  'pipeline_tag',
  'library_name',
  'tags',
  'createdAt',
  'lastModified',
  'cardData',
  'gguf',
] as const;

/** The fields the run uses, so the stored listing stays small (no siblings, no card text). */
function slimRow(row: UpstreamRow): UpstreamRow {
  const out: UpstreamRow = { id: row.id };
  for (const k of [
    'sha',
    'downloads',
    'likes',
    'trendingScore',
    'pipeline_tag',
    'library_name',
    'tags',
    'createdAt',
    'lastModified',
  ] as const) {
    if (row[k] !== undefined && row[k] !== null) (out as unknown as Record<string, unknown>)[k] = row[k];
  }
  const lic = row.cardData?.license;
  if (lic !== undefined) out.cardData = { license: lic };
  const g = row.gguf;
  if (g && typeof g === 'object') {
    const gguf: NonNullable<UpstreamRow['gguf']> = {};
    if (typeof g.architecture === 'string') gguf.architecture = g.architecture;
    if (typeof g.context_length === 'number') gguf.context_length = g.context_length;
    if (typeof g.total === 'number') gguf.total = g.total;
    if (typeof g.chat_template === 'string') gguf.chat_template = g.chat_template;
    out.gguf = gguf;
  }
  return out;
}
