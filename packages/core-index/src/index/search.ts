import type { IndexedModel, IndexStore } from './index-store.js';

export type SortKey = 'trendingScore' | 'downloads' | 'likes' | 'createdAt' | 'lastModified' | 'id';

export interface ModelQuery {
  /** substring of the id, case-insensitive; several words must all match */
  search?: string;
  author?: string;
  /** tags that must all be present (a pipeline tag or library also counts as a tag) */
  filter?: string[];
  pipeline_tag?: string;
  library?: string;
  sort?: SortKey;
  /** -1 descending (default for numbers and dates), 1 ascending */
  direction?: 1 | -1;
}

export const SORT_KEYS: readonly SortKey[] = ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified', 'id'];

export function isSortKey(v: string): v is SortKey {
  return (SORT_KEYS as readonly string[]).includes(v);
}

/** Tags of a model, including its pipeline and library, lower-cased, for filtering. */
export function modelTags(m: IndexedModel): Set<string> {
  const tags = new Set<string>();
  for (const t of m.row.tags ?? []) tags.add(t.toLowerCase());
  if (m.row.pipeline_tag) tags.add(m.row.pipeline_tag.toLowerCase());
  if (m.row.library_name) tags.add(m.row.library_name.toLowerCase());
  return tags;
}

/**
 * The one search over the index, used by the model-host dialect, MCP and the site. Returns models
 * in the requested order (trending by default, which is the catalog's own order).
 */
export function searchModels(index: IndexStore, q: ModelQuery): IndexedModel[] {
  const words = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const author = q.author?.toLowerCase();
  const filters = (q.filter ?? []).map((f) => f.toLowerCase()).filter(Boolean);
  const pipeline = q.pipeline_tag?.toLowerCase();
  const library = q.library?.toLowerCase();
  const out = index.models().filter((m) => {
    const id = m.id.toLowerCase();
    for (const w of words) if (!id.includes(w)) return false;
    if (author && m.owner.toLowerCase() !== author) return false;
    if (pipeline && m.row.pipeline_tag?.toLowerCase() !== pipeline) return false;
    if (library && m.row.library_name?.toLowerCase() !== library) return false;
    if (filters.length) {
      const tags = index.memo(`tags:${m.id}`, () => modelTags(m));
      for (const f of filters) if (!tags.has(f)) return false;
    }
    return true;
  });
  const sort = q.sort ?? 'trendingScore';
  const dir = q.direction ?? (sort === 'id' ? 1 : -1);
  if (sort === 'trendingScore' && dir === -1) return out; // catalog order already
  const key = (m: IndexedModel): number | string => {
    switch (sort) {
      case 'id':
        return m.id.toLowerCase();
      case 'trendingScore':
        return m.row.trendingScore ?? -m.rank / 1e6;
      case 'downloads':
        return m.row.downloads ?? -1;
      case 'likes':
        return m.row.likes ?? -1;
      case 'createdAt':
        return m.row.createdAt ?? '';
      default:
        return m.row.lastModified ?? m.row.createdAt ?? '';
    }
  };
  return out
    .map((m) => ({ m, k: key(m) }))
    .sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : a.m.rank - b.m.rank))
    .map((x) => x.m);
}
