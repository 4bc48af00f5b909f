import type { IndexStore } from '@hub/core-index';

/** How many origins one prepared value is kept for (a forged Host header cannot grow memory without bound). */
const MAX_ORIGINS = 8;

/**
 * A value prepared once per index and per origin (pages and documents that print absolute URLs).
 * At most {@link MAX_ORIGINS} origins are kept per key; the oldest is dropped first.
 */
export function perOrigin<T>(index: IndexStore, key: string, origin: string, build: () => T): T {
  const map = index.memo(`origin-memo:${key}`, () => new Map<string, T>());
  const hit = map.get(origin);
  if (hit !== undefined) return hit;
  const value = build();
  if (map.size >= MAX_ORIGINS) map.delete(map.keys().next().value as string);
  map.set(origin, value);
  return value;
}
