import {
  type CoreDeps,
  fnv1aText,
  type HubResponse,
  type IndexedModel,
  isSortKey,
  type Later,
  type MadeAnswerMaker,
  type ModelInfo,
  type ModelQuery,
  type ModelRow,
  parseBool,
  prepare,
  type RouteContext,
  type SortKey,
  sendPrepared,
  whenReady,
} from '@hub/core-index';
import { badRequest } from './errors.js';
import { type Cursor, type ListPage, pagesOf, type RowBytes, rowsOf } from './list-caches.js';
import { findModel, findRevision, isLfs, pointerSize, securityRepoStatus } from './model.js';

/** `/api/models` and `/api/models/{owner}/{name}[/revision/{rev}]`. */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/** Sort spellings the host's clients send, mapped onto the index's sort keys. */
const SORT_ALIASES: Record<string, SortKey> = {
  trending: 'trendingScore',
  trending_score: 'trendingScore',
  last_modified: 'lastModified',
  created_at: 'createdAt',
  modelId: 'id',
  mostDownloads: 'downloads',
  mostLikes: 'likes',
};

/** Fields `expand` may ask for that the index knows; other names are ignored (the host accepts many more). */
const EXPANDABLE = new Set([
  'author',
  'createdAt',
  'disabled',
  'downloads',
  'gated',
  'lastModified',
  'library_name',
  'likes',
  'pipeline_tag',
  'private',
  'sha',
  'siblings',
  'tags',
  'trendingScore',
  'usedStorage',
]);

/** Fields present whatever `expand` says: the spec makes them required. */
const ROW_REQUIRED = ['_id', 'id', 'modelId', 'sha', 'svc'] as const;
const INFO_REQUIRED = ['_id', 'id', 'modelId', 'sha', 'siblings'] as const;

/** Every value of a repeatable parameter, comma lists split, blanks dropped (`expand`, `expand[]`, `filter`). */
export function listParam(query: URLSearchParams, ...names: string[]): string[] {
  const out: string[] = [];
  for (const n of names) for (const v of query.getAll(n)) for (const part of v.split(',')) if (part.trim()) out.push(part.trim());
  return out;
}

function expandSet(query: URLSearchParams): string[] | undefined {
  const raw = listParam(query, 'expand', 'expand[]');
  if (raw.length === 0) return undefined;
  return [...new Set(raw.filter((f) => EXPANDABLE.has(f)))].sort();
}

// ---- /api/models --------------------------------------------------------------------------------

const SIGNATURE_STATUSES = new Set(['verified', 'failed', 'incomplete', 'needs-bytes']);

interface ListRequest {
  query: ModelQuery;
  limit: number;
  offset: number;
  /** where the last page's search walk ended (`SearchPage.after`), from the cursor */
  from: number | undefined;
  full: boolean;
  expand: string[] | undefined;
}

const CURSOR_PREFIX = 'o';

/**
 * The opaque `cursor` of a `Link: rel="next"`: `o:OFFSET`, or `o:OFFSET:FROM` when the page's search walked an order
 * and the next page goes on from where it ended (`SearchPage.after`), base64url. A cursor of an older hub (`o:OFFSET`)
 * still reads.
 */
export function encodeCursor(at: Cursor): string {
  const text = at.from === undefined ? `${CURSOR_PREFIX}:${at.offset}` : `${CURSOR_PREFIX}:${at.offset}:${at.from}`;
  return btoa(text).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

export function decodeCursor(cursor: string): Cursor | undefined {
  try {
    const b64 = cursor.replace(/-/g, '+').replace(/_/g, '/');
    const m = /^o:(\d{1,9})(?::(\d{1,9}))?$/.exec(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)));
    if (!m) return undefined;
    return m[2] === undefined ? { offset: Number(m[1]) } : { offset: Number(m[1]), from: Number(m[2]) };
  } catch {
    return undefined;
  }
}

function parseList(query: URLSearchParams): ListRequest | HubResponse {
  let limit = DEFAULT_LIMIT;
  const rawLimit = query.get('limit');
  if (rawLimit !== null) {
    const n = /^\s*\d{1,6}\s*$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
      return badRequest(
        `limit must be an integer from 1 to ${MAX_LIMIT} (got ${JSON.stringify(rawLimit.slice(0, 40))}); omit it for ${DEFAULT_LIMIT}, and follow the Link rel="next" header for more.`,
      );
    }
    limit = n;
  }
  let at: Cursor = { offset: 0 };
  const cursor = query.get('cursor');
  if (cursor !== null && cursor !== '') {
    const o = decodeCursor(cursor);
    if (o === undefined)
      return badRequest('cursor is not one this hub issued; start again without cursor and follow the Link rel="next" header.');
    at = o;
  }
  const q: ModelQuery = {};
  const search = query.get('search');
  if (search) q.search = search;
  const author = query.get('author');
  if (author) q.author = author;
  const filter = listParam(query, 'filter', 'filter[]');
  // `signature=verified` (or failed, incomplete, needs-bytes): models whose own model.sig has that verdict
  const signature = query.get('signature');
  if (signature !== null) {
    if (!SIGNATURE_STATUSES.has(signature))
      return badRequest(`signature must be one of ${[...SIGNATURE_STATUSES].join(', ')} (got ${JSON.stringify(signature.slice(0, 40))}).`);
    filter.push(`signature:${signature}`);
  }
  if (filter.length) q.filter = filter;
  const pipeline = query.get('pipeline_tag');
  if (pipeline) q.pipeline_tag = pipeline;
  const library = query.get('library') ?? query.get('library_name');
  if (library) q.library = library;
  const sort = query.get('sort');
  if (sort) {
    const key = SORT_ALIASES[sort] ?? sort;
    if (!isSortKey(key)) {
      return badRequest(
        `sort must be one of trendingScore, downloads, likes, createdAt, lastModified, id (got ${JSON.stringify(sort.slice(0, 40))}).`,
      );
    }
    q.sort = key;
  }
  const direction = query.get('direction');
  if (direction) {
    const d = direction.toLowerCase();
    if (d === '-1' || d === 'desc' || d === 'descending') q.direction = -1;
    else if (d === '1' || d === 'asc' || d === 'ascending') q.direction = 1;
    else return badRequest(`direction must be -1 (descending) or 1 (ascending) (got ${JSON.stringify(direction.slice(0, 40))}).`);
  }
  return { query: q, limit, offset: at.offset, from: at.from, full: parseBool(query.get('full')), expand: expandSet(query) };
}

/** Everything the dialect can say about one model, in the host's key order; rows and info pick from it. */
function fullRecord(model: IndexedModel, blobs: boolean): Record<string, unknown> {
  const row = model.row;
  const rec: Record<string, unknown> = { ...row };
  rec.siblings = model.files.map((f) => sibling(f, blobs));
  rec.usedStorage = model.files.reduce((n, f) => n + f.size, 0);
  return rec;
}

function sibling(f: IndexedModel['files'][number], blobs: boolean): ModelInfo['siblings'][number] {
  if (!blobs) return { rfilename: f.path };
  const s: ModelInfo['siblings'][number] = { rfilename: f.path, size: f.size, blobId: f.sha256 };
  if (isLfs(f)) s.lfs = { sha256: f.sha256, size: f.size, pointerSize: pointerSize(f.size) };
  return s;
}

function pick(rec: Record<string, unknown>, required: readonly string[], expand: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of required) if (rec[k] !== undefined) out[k] = rec[k];
  for (const k of expand) if (rec[k] !== undefined && out[k] === undefined) out[k] = rec[k];
  return out;
}

const encoder = new TextEncoder();

/** One row as JSON bytes: the catalog row (rows not `listed` carry no placeholders), plus siblings with `full`. */
function rowBytes(rows: RowBytes, model: IndexedModel, full: boolean, expand: string[] | undefined): Uint8Array {
  if (expand) return encoder.encode(JSON.stringify(pick(fullRecord(model, false), ROW_REQUIRED, expand)));
  const key = full ? -1 - model.rank : model.rank;
  let bytes = rows.get(key);
  if (bytes === undefined) {
    const row: ModelRow & { siblings?: unknown } = { ...model.row };
    if (full) row.siblings = model.files.map((f) => ({ rfilename: f.path }));
    bytes = encoder.encode(JSON.stringify(row));
    rows.set(key, bytes);
  }
  return bytes;
}

/** `[row,row,…]` as one buffer. */
function joinRows(parts: Uint8Array[]): Uint8Array {
  let size = 2 + Math.max(0, parts.length - 1);
  for (const p of parts) size += p.byteLength;
  const out = new Uint8Array(size);
  out[0] = 0x5b; // [
  let at = 1;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k] as Uint8Array;
    if (k > 0) out[at++] = 0x2c; // ,
    out.set(p, at);
    at += p.byteLength;
  }
  out[at] = 0x5d; // ]
  return out;
}

const MAX_CACHED_LINKS = 16;

/** Limits whose first page of the plain browse list is kept prepared (the hot paths of the host's clients). */
const PREPARED_LIMITS = new Set([DEFAULT_LIMIT, 100, MAX_LIMIT]);

function isPlainBrowse(r: ListRequest): boolean {
  return r.offset === 0 && !r.expand && Object.keys(r.query).length === 0 && PREPARED_LIMITS.has(r.limit);
}

export async function listModels(ctx: RouteContext<CoreDeps>): Promise<HubResponse> {
  const index = ctx.deps.index();
  // A page answered before is answered again as it was (only valid search requests are kept).
  const pages = pagesOf(index, ctx.deps);
  let list = pages.get(ctx.search);
  if (list === undefined) {
    const parsed = parseList(ctx.query);
    if ('status' in parsed) return parsed;
    const r = parsed;
    const build = async (): Promise<ListPage> => {
      const found = await index.search(r.query, r.offset, r.limit, r.from);
      const rows = rowsOf(index, ctx.deps);
      const body = joinRows(found.models.map((m) => rowBytes(rows, m, r.full, r.expand)));
      // The page is a function of the catalog and the query alone, so its ETag is a fingerprint of those (a few dozen
      // bytes) rather than of the page (tens of KB hashed on every search).
      const seed = fnv1aText(`${index.catalogAddress}?${ctx.search}`);
      return {
        body: prepare(body, undefined, seed),
        more: found.more,
        next: { offset: r.offset + found.models.length, from: found.after },
        links: new Map(),
      };
    };
    if (isPlainBrowse(r)) list = await index.memo(`hf:models:${r.limit}:${r.full}`, build);
    else {
      list = await build();
      pages.set(ctx.search, list);
    }
  }
  const headers: Record<string, string> = {};
  if (list.more) {
    const key = `${ctx.origin}${ctx.path}?${ctx.search}`;
    let link = list.links.get(key);
    if (link === undefined) {
      const next = new URLSearchParams(ctx.query);
      next.set('cursor', encodeCursor(list.next));
      link = `<${ctx.origin}${ctx.path}?${next.toString()}>; rel="next"`;
      // A prepared first page keeps the links of a few spellings of its URL (bounded: the Host header is the client's).
      if (list.links.size < MAX_CACHED_LINKS) list.links.set(key, link);
    }
    headers.link = link;
  }
  return sendPrepared(list.body, 200, headers);
}

// ---- /api/models/{owner}/{name} -----------------------------------------------------------------

function infoBody(model: IndexedModel, blobs: boolean, expand: string[] | undefined): unknown {
  const rec = fullRecord(model, blobs);
  if (expand) return pick(rec, INFO_REQUIRED, expand);
  const info: Record<string, unknown> = {};
  // Key order as the host answers: ids, then facts, then files, then the hub's own block.
  for (const k of [
    '_id',
    'id',
    'modelId',
    'author',
    'sha',
    'private',
    'gated',
    'disabled',
    'pipeline_tag',
    'library_name',
    'tags',
    'downloads',
    'likes',
    'trendingScore',
    'createdAt',
    'lastModified',
    'siblings',
    'usedStorage',
    'svc',
  ]) {
    if (rec[k] !== undefined) info[k] = rec[k];
  }
  return info;
}

/** The memo key of a model's info answer (also its key among the answers made before they are asked). */
function infoKey(id: string, blobs: boolean, security: boolean): string {
  return `hf:info:${blobs}:${security}:${id}`;
}

/**
 * The model info answer every model has (no `blobs`, `expand` or `securityStatus`), made for each model after a build
 * by a host that keeps made answers (core-index made-answers.ts; node-server writes them), so a cold look-up of a
 * large day reads its answer whole. `make` is the route's own rendering, so both are the same bytes.
 */
export const HF_MADE_ANSWERS: readonly MadeAnswerMaker[] = [
  { id: 'hf:info:1', key: (m) => infoKey(m.id, false, false), make: (m) => prepare(infoBody(m, false, undefined)) },
];

/** An info ask with none of the query that changes the answer (`blobs`, `expand`, `securityStatus`). */
function isPlainInfo(query: URLSearchParams): boolean {
  return !parseBool(query.get('blobs')) && !expandSet(query) && !parseBool(query.get('securityStatus'));
}

export function modelInfo(ctx: RouteContext<CoreDeps>, rev: string | undefined): Later<HubResponse> {
  const { owner = '', name = '' } = ctx.params;
  const index = ctx.deps.index();
  // The plain ask of a model by its exact id: the answer made before it was asked, when the store has one.
  if (rev === undefined && index.made && (ctx.search === '' || isPlainInfo(ctx.query))) {
    const made = index.made(infoKey(`${owner}/${name}`, false, false));
    if (made) return sendPrepared(made);
  }
  const looked = rev === undefined ? findModel(ctx.deps, owner, name) : findRevision(ctx.deps, owner, name, rev);
  return whenReady(looked, (found) => {
    if (!found.ok) return found.response;
    const model = found.value;
    const blobs = parseBool(ctx.query.get('blobs'));
    const expand = expandSet(ctx.query);
    // huggingface_hub's model_info(securityStatus=True): the host's scan verdicts as `securityRepoStatus`
    const security = parseBool(ctx.query.get('securityStatus'));
    const body = (e: string[] | undefined) => {
      const info = infoBody(model, blobs, e) as Record<string, unknown>;
      return security ? { ...info, securityRepoStatus: securityRepoStatus(model) } : info;
    };
    if (expand) return sendPrepared(prepare(body(expand)));
    return sendPrepared(index.memo(infoKey(model.id, blobs, security), () => prepare(body(undefined))));
  });
}
