import {
  type Address,
  ArchiveSchema,
  type IndexStore,
  type MadeAnswerMaker,
  type ObjectStore,
  openPagedIndex,
  type PagedIndexOptions,
} from '@hub/core-index';
import { HF_MADE_ANSWERS } from '@hub/dialect-hf';

/**
 * The answers the hub's dialects make for every model, which a host with a local disk may make for a day before they
 * are asked (core-index made-answers.ts): the model-host dialect's model info.
 */
export const HUB_MADE_ANSWERS: readonly MadeAnswerMaker[] = HF_MADE_ANSWERS;

/** Which store serves the day (design 11.1): the whole index in memory, the paged store, or by the day's size. */
export type IndexStoreKind = 'auto' | 'memory' | 'paged';

export const INDEX_STORE_KINDS: readonly IndexStoreKind[] = ['auto', 'memory', 'paged'];

/** `auto` serves a day of at least this many models from its pages (smaller days load whole: fastest, little memory). */
export const PAGED_FROM_MODELS = 20_000;

/** The kind a setting names, or a one-line reason it names none (`what`: where the setting came from). */
export function indexStoreKind(value: string | undefined, what: string): IndexStoreKind {
  const v = value?.trim().toLowerCase() || 'auto';
  if ((INDEX_STORE_KINDS as readonly string[]).includes(v)) return v as IndexStoreKind;
  throw new Error(`${what} must be one of ${INDEX_STORE_KINDS.join(', ')} (got ${JSON.stringify(String(value).slice(0, 40))}).`);
}

/** The archive day of `catalog`: its index pages and its model count, when the archive lists them. */
export async function dayOf(objects: ObjectStore, catalog: Address): Promise<{ pages?: Address; models?: number }> {
  const raw = await objects.readRef('archive');
  if (!raw) return {};
  let parsed: ReturnType<typeof ArchiveSchema.safeParse>;
  try {
    parsed = ArchiveSchema.safeParse(JSON.parse(raw));
  } catch {
    return {};
  }
  const day = parsed.success ? parsed.data.days.find((d) => (d.catalog ?? d.index) === catalog) : undefined;
  return day ? { ...(day.pages ? { pages: day.pages as Address } : {}), ...(day.models !== undefined ? { models: day.models } : {}) } : {};
}

/**
 * Whether the store `kind` serves a day from its pages (the archive day's `pages` and `models`): `paged` whenever the
 * day has pages, `auto` a day of `pagedFrom` models or more, `memory` never. The one rule of {@link openDay}, which a
 * bundle import follows too (it prepares a whole-index start only for a day that will load whole).
 */
export function servedFromPages(
  kind: IndexStoreKind,
  day: { pages?: string | undefined; models?: number | undefined },
  pagedFrom: number = PAGED_FROM_MODELS,
): boolean {
  return kind !== 'memory' && !!day.pages && (kind === 'paged' || (day.models ?? 0) >= pagedFrom);
}

/**
 * Open the day `catalog` in the store `kind` asks for: `paged` reads the day's index pages (the archive day names
 * them); `memory` loads the whole index (`whole`); `auto` pages a day of {@link PAGED_FROM_MODELS} models or more
 * (`pagedFrom`: the edge pages every day that has pages).
 * A day without pages (built before they existed, or without them) loads whole, whatever the kind.
 */
export async function openDay(
  objects: ObjectStore,
  catalog: Address,
  kind: IndexStoreKind,
  whole: () => Promise<IndexStore>,
  options: PagedIndexOptions & {
    /** `auto` pages a day of at least this many models (default {@link PAGED_FROM_MODELS}; the edge: 0) */
    pagedFrom?: number;
  } = {},
): Promise<IndexStore> {
  if (kind === 'memory') return whole();
  const day = await dayOf(objects, catalog);
  if (!day.pages || !servedFromPages(kind, day, options.pagedFrom)) return whole();
  return openPagedIndex(objects, day.pages, catalog, options);
}
