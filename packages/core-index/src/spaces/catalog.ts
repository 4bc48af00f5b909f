import type { Address } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import { type ObjectStore, withRef } from '../index/object-store.js';
import { SPACES_KIND, type SpaceObject, SpaceObjectSchema, type SpacesCatalog, SpacesCatalogSchema } from './schema.js';

/**
 * The ref that names the current `model-hub.spaces` catalog. Publishing a space writes a new catalog
 * object first and then moves this ref in one atomic write, so a reader sees the old catalog or the
 * new one, never half of either.
 */
export const SPACES_REF = 'spaces';

export interface CurrentSpaces {
  /** the address of the current catalog, or null when no space was ever published */
  address: Address | null;
  catalog: SpacesCatalog;
}

const EMPTY: SpacesCatalog = { kind: SPACES_KIND, spaces: {}, prev: null };
const decoder = new TextDecoder();

/** The current spaces catalog (an empty one when none was published, or the ref names nothing readable). */
export async function readSpaces(objects: ObjectStore): Promise<CurrentSpaces> {
  const ref = (await objects.readRef(SPACES_REF))?.trim();
  if (!ref) return { address: null, catalog: EMPTY };
  const stored = await objects.get(ref as Address);
  if (!stored) return { address: null, catalog: EMPTY };
  const parsed = SpacesCatalogSchema.safeParse(JSON.parse(decoder.decode(stored.bytes)));
  return parsed.success ? { address: ref as Address, catalog: parsed.data } : { address: null, catalog: EMPTY };
}

/** One space object by its root, or undefined when the store does not hold a valid one there. */
export async function readSpace(objects: ObjectStore, root: Address): Promise<SpaceObject | undefined> {
  const stored = await objects.get(root);
  if (stored?.meta.kind !== 'model-hub.space') return undefined;
  try {
    return SpaceObjectSchema.parse(JSON.parse(decoder.decode(stored?.bytes)));
  } catch {
    return undefined;
  }
}

export type RecordResult =
  | { outcome: 'recorded' | 'unchanged'; catalog: Address }
  /** the space's `prev` is not the name's current root: someone published in between */
  | { outcome: 'conflict'; current: Address | null };

// One writer at a time per store in this process: read catalog, compare, write, move the ref.
const queues = new WeakMap<ObjectStore, Promise<unknown>>();

function serialized<T>(objects: ObjectStore, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(objects) ?? Promise.resolve();
  const run = before.then(fn, fn);
  queues.set(
    objects,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * Make `root` the current version of `space.name`: compare `space.prev` with the name's current root
 * (null for a new name), store the new catalog (prev = the old catalog), then move the ref.
 * Publishing the current root again changes nothing.
 */
export function recordSpace(objects: ObjectStore, root: Address, space: SpaceObject): Promise<RecordResult> {
  // Queued in this process, and held against the other processes sharing the data folder (issue 41).
  return serialized(objects, () => withRef(objects, SPACES_REF, () => record(objects, root, space)));
}

async function record(objects: ObjectStore, root: Address, space: SpaceObject): Promise<RecordResult> {
  const now = await readSpaces(objects);
  const current = (now.catalog.spaces[space.name] as Address | undefined) ?? null;
  if (current === root && now.address) return { outcome: 'unchanged', catalog: now.address };
  if (space.prev !== current) return { outcome: 'conflict', current };
  const spaces = { ...now.catalog.spaces, [space.name]: root };
  const next: SpacesCatalog = {
    kind: SPACES_KIND,
    spaces: Object.fromEntries(Object.entries(spaces).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    prev: now.address,
  };
  const { meta } = await objects.put(canonicalBytes(next), { kind: SPACES_KIND, mediaType: 'application/json' });
  await objects.writeRef(SPACES_REF, meta.id);
  return { outcome: 'recorded', catalog: meta.id as Address };
}

/** Would `space` be accepted now? (the same comparison `recordSpace` makes, without writing) */
export async function spaceConflict(objects: ObjectStore, space: SpaceObject, root: Address): Promise<Address | null | false> {
  const current = ((await readSpaces(objects)).catalog.spaces[space.name] as Address | undefined) ?? null;
  if (current === root || space.prev === current) return false;
  return current;
}
