/**
 * Reading a hub's index objects over HTTP, each checked against its BLAKE3 address before it is used: the catalog the
 * hub serves today (its descriptor names it), its rows in browse order, and every object a day's index is made of
 * (what `hub bundle create` carries across an air gap).
 */

import {
  type Address,
  addressOf,
  type CatalogObject,
  CatalogObjectSchema,
  CatalogShardSchema,
  type FileRecord,
  isAddress,
  ModelObjectSchema,
  type ModelRow,
  PAGE_KIND,
  PAGES_KIND,
} from '@hub/core-index';
import { namingFetch } from './reach.js';

const trimSlash = (s: string) => s.replace(/\/+$/, '');

export interface FetchedObject {
  address: Address;
  bytes: Uint8Array;
  kind: string;
  mediaType: string;
}

/**
 * GET one object and its kind and media type; throws unless the bytes hash to the address. The object API answers
 * them with the bytes (`X-Object-Kind`, `Content-Type`), so one request is enough; a hub or proxy that leaves
 * `X-Object-Kind` out is asked `/meta` as well.
 */
export async function fetchObject(hub: string, address: string, given: typeof fetch = fetch): Promise<FetchedObject> {
  const f = namingFetch(given);
  if (!isAddress(address)) throw new Error(`not an object address: ${address.slice(0, 80)}`);
  const base = `${trimSlash(hub)}/api/v1/objects/${address}`;
  const r = await f(base);
  if (!r.ok) throw new Error(`object ${address}: HTTP ${r.status} from the hub`);
  const bytes = new Uint8Array(await r.arrayBuffer());
  const actual = addressOf(bytes);
  if (actual !== address) throw new Error(`object ${address}: the hub's bytes hash to ${actual}`);
  const kind = r.headers.get('x-object-kind');
  const type = r.headers.get('content-type');
  if (kind && type) return { address, bytes, kind, mediaType: type };
  const m = await f(`${base}/meta`);
  if (!m.ok) throw new Error(`object ${address} metadata: HTTP ${m.status} from the hub`);
  const meta = (await m.json()) as { kind?: unknown; media_type?: unknown };
  if (typeof meta.kind !== 'string' || typeof meta.media_type !== 'string') throw new Error(`object ${address}: metadata without kind`);
  return { address, bytes, kind: meta.kind, mediaType: meta.media_type };
}

const decoder = new TextDecoder();
const json = (o: FetchedObject): unknown => JSON.parse(decoder.decode(o.bytes));

/** A catalog by its address, shards joined. */
async function catalogAt(hub: string, address: string, f: typeof fetch): Promise<CatalogObject> {
  const root = CatalogObjectSchema.parse(json(await fetchObject(hub, address, f)));
  const rows = [...root.rows];
  const objects = { ...root.objects };
  for (const ref of root.shards ?? []) {
    const shard = CatalogShardSchema.parse(json(await fetchObject(hub, ref.address, f)));
    rows.push(...shard.rows);
    Object.assign(objects, shard.objects);
  }
  return { ...root, rows, objects };
}

/** How many earlier days and revisions {@link archivedModelFiles} walks back at most. */
const ARCHIVE_STEPS = 400;

/**
 * The files of `id` at `revision` as the hub's archive records them (undefined when it holds no such revision): the
 * model object of the catalog served today and its earlier revisions through `prev`; a model today's catalog no
 * longer lists is looked for in earlier days' catalogs. Every object is checked against its address.
 */
export async function archivedModelFiles(
  hub: string,
  id: string,
  revision: string,
  options: { fetch?: typeof fetch; seen?: ArchiveSeen } = {},
): Promise<FileRecord[] | undefined> {
  const f = namingFetch(options.fetch ?? fetch);
  // Objects never change under their address: one run asking for many models reads each catalog once.
  const seen = options.seen ?? new Map();
  const catalogOnce = (address: string) => {
    const had = seen.get(address);
    if (had) return had;
    const got = catalogAt(hub, address, f).then((c) => ({
      models: new Map(Object.entries(c.objects).map(([k, e]) => [k, e.model])),
      prev: c.prev,
    }));
    seen.set(address, got);
    return got;
  };
  const r = await f(`${trimSlash(hub)}/.well-known/model-hub.json`, { headers: { accept: 'application/json' } });
  if (!r.ok) throw new Error(`${hub}: the descriptor answered HTTP ${r.status}; is this a model hub?`);
  let at: string | null = ((await r.json()) as { catalog?: string }).catalog ?? null;
  for (let day = 0; at && day < ARCHIVE_STEPS; day++) {
    const catalog = await catalogOnce(at);
    let model = catalog.models.get(id) ?? null;
    if (model) {
      for (let step = 0; model && step < ARCHIVE_STEPS; step++) {
        const m = ModelObjectSchema.parse(json(await fetchObject(hub, model, f)));
        if (m.revision === revision.toLowerCase()) return m.files;
        model = m.prev;
      }
      return undefined;
    }
    at = catalog.prev;
  }
  return undefined;
}

/** The catalogs an archive walk has read (their model addresses), kept across the models of one run. */
export type ArchiveSeen = Map<string, Promise<{ models: Map<string, string | undefined>; prev: string | null }>>;

/** The pages and directories of a paged list or hashed map of a day's index pages (page-layout.ts). */
function pagedReferences(list: unknown): string[] {
  const l = (list ?? {}) as { pages?: unknown; dirs?: unknown };
  return [...(Array.isArray(l.pages) ? l.pages : []), ...(Array.isArray(l.dirs) ? l.dirs : [])].filter((a) => typeof a === 'string');
}

/**
 * The addresses an index object names (catalog: shards, models, sources, prev; model: prev; the day's index pages:
 * every page their root and directories list, and the postings segments of the search terms).
 */
export function objectReferences(kind: string, value: unknown): string[] {
  const v = value as Record<string, unknown>;
  const out: string[] = [];
  const entries = (objects: unknown) => {
    for (const e of Object.values((objects ?? {}) as Record<string, { model?: string; sources?: string[] }>)) {
      if (e.model) out.push(e.model);
      out.push(...(e.sources ?? []));
    }
  };
  if (kind === 'model-hub.catalog') {
    for (const s of (v.shards ?? []) as Array<{ address: string }>) out.push(s.address);
    entries(v.objects);
    if (typeof v.prev === 'string') out.push(v.prev);
  } else if (kind === 'model-hub.catalog-shard') entries(v.objects);
  else if (kind === 'model-hub.model' && typeof v.prev === 'string') out.push(v.prev);
  else if (kind === PAGES_KIND) {
    for (const key of ['models', 'ids', 'shas', 'terms', 'names']) out.push(...pagedReferences(v[key]));
    for (const order of Object.values((v.orders ?? {}) as Record<string, unknown>)) out.push(...pagedReferences(order));
  } else if (kind === PAGE_KIND) {
    if (v.role === 'dir') out.push(...pagedReferences(v));
    if (v.role === 'terms')
      for (const p of Object.values((v.entries ?? {}) as Record<string, { s?: unknown }>))
        if (Array.isArray(p?.s)) out.push(...p.s.filter((a) => typeof a === 'string'));
  }
  return out.filter(isAddress);
}

/**
 * Every object reachable from `roots` (catalogs): their shards, model and source objects, earlier days' catalogs and
 * models through `prev`, a day's index pages. Each is fetched once and checked against its address; `onObject` sees
 * it before any object it names is fetched.
 * The walk is depth first (a shard's models before the next shard), so it holds the references of at most `parallel`
 * objects at each depth (catalog, shard, model, earlier revision…), never a queue of the whole index. `held` answers
 * whether an object was already taken in this walk (a bundle asks its own folder, so the walk keeps no set of every
 * address); without it the walk keeps that set itself.
 */
export async function collectIndexObjects(
  hub: string,
  roots: string[],
  options: {
    fetch?: typeof fetch;
    onObject?: (o: FetchedObject) => Promise<void> | void;
    parallel?: number;
    held?: (address: Address) => boolean | Promise<boolean>;
  } = {},
): Promise<number> {
  const f = options.fetch ?? fetch;
  const parallel = Math.max(1, options.parallel ?? 8);
  const seen = new Set<string>();
  const held = options.held ?? ((a: Address) => seen.has(a));
  let count = 0;
  const walk = async (addresses: string[]): Promise<void> => {
    for (let i = 0; i < addresses.length; i += parallel) {
      const batch: Address[] = [];
      for (const a of new Set(addresses.slice(i, i + parallel))) if (isAddress(a) && !(await held(a as Address))) batch.push(a as Address);
      if (!options.held) for (const a of batch) seen.add(a);
      const got = await Promise.all(batch.map((a) => fetchObject(hub, a, f)));
      const named: string[][] = [];
      for (const o of got) {
        count++;
        await options.onObject?.(o);
        named.push(o.kind.startsWith('model-hub.') ? objectReferences(o.kind, json(o)) : []);
      }
      got.length = 0; // the bytes are not kept while the objects they name are walked
      for (const refs of named) await walk(refs);
    }
  };
  await walk(roots);
  return count;
}

/** The root object of the catalog the hub serves (its descriptor names it): a sharded catalog's rows are not read. */
export async function hubCatalogRoot(hub: string, given: typeof fetch = fetch): Promise<{ address: Address; root: CatalogObject }> {
  const f = namingFetch(given);
  const r = await f(`${trimSlash(hub)}/.well-known/model-hub.json`, { headers: { accept: 'application/json' } });
  if (!r.ok) throw new Error(`${hub}: the descriptor answered HTTP ${r.status}; is this a model hub?`);
  const address = ((await r.json()) as { catalog?: string }).catalog ?? '';
  return { address: address as Address, root: CatalogObjectSchema.parse(json(await fetchObject(hub, address, f))) };
}

/** The rows of a catalog in browse order, read a shard at a time (the whole catalog is never held). */
export async function* catalogRows(hub: string, root: CatalogObject, given: typeof fetch = fetch): AsyncGenerator<ModelRow> {
  const f = namingFetch(given);
  yield* root.rows;
  for (const ref of root.shards ?? []) yield* CatalogShardSchema.parse(json(await fetchObject(hub, ref.address, f))).rows;
}
