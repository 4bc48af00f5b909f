import type { Address } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import type { ObjectStore } from '../index/object-store.js';
import { AddressSchema } from '../index/schemas.js';
import * as z from '../zod.js';
import { formatCheckpoint, type NoteSigner, openNote, parseCheckpoint, parseVerifierKey, signNote } from './note.js';
import {
  bundleBytes,
  HASH_SIZE,
  type Hash,
  hashTileBytes,
  leafHash,
  parseBundle,
  TILE_WIDTH,
  type Tile,
  tilesForSize,
  toHex,
  treeHash,
} from './tlog.js';

/**
 * The daily archive as a transparency log (design 10.4): each archived day is one leaf whose entry is the canonical
 * JSON {@link LogEntry}; the tiles, entry bundles and signed checkpoint are objects of the store, and the ref `log`
 * names them ({@link LogState}). An append writes its new objects first and the ref last, so a build killed at any
 * point leaves the log as it was before it or complete after it.
 */
export const LOG_REF = 'log';
export const LOG_ENTRY_KIND = 'model-hub.log-entry';
export const LOG_TILE_KIND = 'model-hub.log-tile';
export const CHECKPOINT_KIND = 'model-hub.checkpoint';
export const CHECKPOINT_MEDIA_TYPE = 'text/plain; charset=utf-8';

export const LogEntrySchema = z.object({
  kind: z.literal(LOG_ENTRY_KIND),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  index: AddressSchema,
  catalog: AddressSchema,
  /** The RFC 6962 leaf hash of the previous entry, 64 hex; null for the first. */
  prev: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});
export type LogEntry = z.Infer<typeof LogEntrySchema>;

export const LogStateSchema = z.object({
  format: z.literal('svc.model-hub.log/v1'),
  /** Leaves in the tree. */
  size: z.number().int().nonnegative(),
  /** The checkpoint origin, fixed by the first signed checkpoint. */
  origin: z.string().optional(),
  /** The newest signed checkpoint (an object), its tree size and the verifier keys that signed it. */
  checkpoint: AddressSchema.nullable(),
  checkpointSize: z.number().int().nonnegative().optional(),
  keys: z.array(z.string()),
  /** `<level>/<n>` or `entries/<n>` → the object holding the widest version of that tile written so far. */
  tiles: z.record(z.string(), AddressSchema),
});
export type LogState = z.Infer<typeof LogStateSchema>;

export const EMPTY_LOG: LogState = { format: 'svc.model-hub.log/v1', size: 0, checkpoint: null, keys: [], tiles: {} };

export class LogStateError extends Error {}

/** The log's state from the `log` ref; the empty log when there is none; throws {@link LogStateError} when unreadable. */
export async function readLogState(objects: ObjectStore): Promise<LogState> {
  const raw = await objects.readRef(LOG_REF);
  if (!raw) return EMPTY_LOG;
  try {
    return LogStateSchema.parse(JSON.parse(raw));
  } catch (e) {
    throw new LogStateError(`the log ref is unreadable: ${(e as Error).message.slice(0, 200)}`);
  }
}

export const tileKey = (t: Pick<Tile, 'level' | 'n'>): string => `${t.level}/${t.n}`;

/** The width tile (level, n) has in a tree of `size` leaves (0: not in the tree). */
export function tileWidth(level: number | 'entries', n: number, size: number): number {
  const count = level === 'entries' ? size : Math.floor(size / TILE_WIDTH ** level);
  return Math.max(0, Math.min(TILE_WIDTH, count - n * TILE_WIDTH));
}

/**
 * The bytes of tile `t` as a log of `state.size` leaves serves it: a prefix of the widest version stored (a partial
 * tile is the start of any wider one). Undefined when the tile is not part of the tree or its object is missing.
 */
export async function readTile(objects: ObjectStore, state: LogState, t: Tile): Promise<Uint8Array | undefined> {
  const have = tileWidth(t.level, t.n, state.size);
  if (have === 0 || t.width > have) return undefined;
  const address = state.tiles[tileKey(t)];
  const stored = address ? await objects.get(address as Address) : undefined;
  if (!stored) return undefined;
  if (t.level !== 'entries') return stored.bytes.byteLength >= t.width * HASH_SIZE ? stored.bytes.slice(0, t.width * HASH_SIZE) : undefined;
  const entries = parseBundle(stored.bytes);
  return entries.length >= t.width ? bundleBytes(entries.slice(0, t.width)) : undefined;
}

/** Every entry of the log, in order (read from its entry bundles). */
export async function readLogEntries(objects: ObjectStore, state: LogState): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const t of tilesForSize(state.size).filter((x) => x.level === 'entries')) {
    const bytes = await readTile(objects, state, t);
    if (!bytes) throw new LogStateError(`the log's ${tileKey(t)} bundle is missing from the store`);
    out.push(...parseBundle(bytes));
  }
  if (out.length !== state.size) throw new LogStateError(`the log holds ${out.length} entries, its state says ${state.size}`);
  return out;
}

export interface AppendResult {
  /** The leaf index of this day's entry (the last day given). */
  leaf: number;
  /** The leaf index of each day given, in the order given (a day equal to the last leaf is that leaf). */
  leaves: number[];
  /** False when the last leaf already records this day with the same addresses (a rerun of a finished build). */
  appended: boolean;
  size: number;
  /** The signed checkpoint over the whole log (this day included), or null when no signing key was given. */
  checkpoint: Address | null;
}

/**
 * Append archived days (oldest first) to the log and sign one checkpoint over it with every signer (several
 * signatures let a key be rotated while older verifiers still check). A day whose record equals the last leaf is not
 * appended again (a rerun of a finished build); a day rebuilt with other addresses becomes a new leaf: the log is
 * append-only and keeps both. The result is the last day's.
 */
export async function appendDays(
  objects: ObjectStore,
  days: ReadonlyArray<{ date: string; index: string; catalog: string }>,
  signers: readonly NoteSigner[] = [],
): Promise<AppendResult> {
  const state = await readLogState(objects);
  const entries = await readLogEntries(objects, state);
  const leaves: Hash[] = entries.map(leafHash);
  const next: LogState = { ...state, tiles: { ...state.tiles } };
  let appended = false;
  const dayLeaves: number[] = [];
  for (const day of days) {
    const lastBytes = entries[entries.length - 1];
    const last = lastBytes ? LogEntrySchema.safeParse(JSON.parse(new TextDecoder().decode(lastBytes))) : undefined;
    appended = !(last?.success && last.data.date === day.date && last.data.index === day.index && last.data.catalog === day.catalog);
    if (!appended) {
      dayLeaves.push(entries.length - 1);
      continue;
    }
    const entry: LogEntry = {
      kind: LOG_ENTRY_KIND,
      date: day.date,
      index: day.index,
      catalog: day.catalog,
      prev: leaves.length ? toHex(leaves[leaves.length - 1] as Hash) : null,
    };
    const bytes = canonicalBytes(LogEntrySchema.parse(entry));
    entries.push(bytes);
    leaves.push(leafHash(bytes));
    dayLeaves.push(entries.length - 1);
  }
  next.size = entries.length;
  // The tiles that grew: every tile of the new tree wider than what the old tree had at its place.
  for (const t of tilesForSize(next.size)) {
    if (tileWidth(t.level, t.n, state.size) >= t.width) continue;
    const tileBytes =
      t.level === 'entries'
        ? bundleBytes(entries.slice(t.n * TILE_WIDTH, t.n * TILE_WIDTH + t.width))
        : hashTileBytes(leaves, { ...t, level: t.level });
    const { meta } = await objects.put(tileBytes, { kind: LOG_TILE_KIND, mediaType: 'application/octet-stream' });
    next.tiles[tileKey(t)] = meta.id;
  }
  const keys = signers.map((s) => s.verifierKey);
  const fresh = state.checkpoint !== null && state.checkpointSize === next.size && sameList(state.keys, keys);
  if (signers.length > 0 && !fresh && next.size > 0) {
    const origin = state.origin ?? (signers[0] as NoteSigner).name;
    const note = await signNote(formatCheckpoint({ origin, size: next.size, root: treeHash(leaves) }), signers);
    const { meta } = await objects.put(new TextEncoder().encode(note), { kind: CHECKPOINT_KIND, mediaType: CHECKPOINT_MEDIA_TYPE });
    Object.assign(next, { origin, checkpoint: meta.id, checkpointSize: next.size, keys });
  }
  if (next.size !== state.size || next.checkpoint !== state.checkpoint) await objects.writeRef(LOG_REF, JSON.stringify(next));
  const covers = next.checkpoint !== null && (next.checkpointSize ?? 0) >= next.size;
  return { leaf: next.size - 1, leaves: dayLeaves, appended, size: next.size, checkpoint: covers ? (next.checkpoint as Address) : null };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The log of a store checked against itself (`hub index verify --data`): every tile the ref names is what the entries
 * make it, the entries chain by `prev`, each archived day's `leaf` is an entry of that date and catalog, and the
 * checkpoint signs the root of its size with the keys the ref names. Returns the faults (none: sound).
 */
export async function checkLogStore(
  objects: ObjectStore,
  days: ReadonlyArray<{ date: string; index: string; leaf?: number }>,
): Promise<string[]> {
  const faults: string[] = [];
  let state: LogState;
  let entries: Uint8Array[];
  try {
    state = await readLogState(objects);
    entries = await readLogEntries(objects, state);
  } catch (e) {
    return [`log: ${(e as Error).message}`];
  }
  const leaves = entries.map(leafHash);
  const records: Array<LogEntry | undefined> = entries.map((e) => {
    const parsed = LogEntrySchema.safeParse(safeJson(e));
    return parsed.success ? parsed.data : undefined;
  });
  for (const [i, r] of records.entries()) {
    if (!r) faults.push(`log entry ${i}: not a model-hub.log-entry record`);
    else if (r.prev !== (i === 0 ? null : toHex(leaves[i - 1] as Hash)))
      faults.push(`log entry ${i} (${r.date}): prev does not name the leaf before`);
  }
  for (const t of tilesForSize(state.size)) {
    if (t.level === 'entries') continue;
    const served = await readTile(objects, state, t);
    const want = hashTileBytes(leaves, { ...t, level: t.level });
    if (!served || served.byteLength !== want.byteLength || served.some((b, i) => b !== want[i]))
      faults.push(`log ${tileKey(t)}: the tile does not match the entries`);
  }
  for (const d of days) {
    if (d.leaf === undefined) continue;
    const r = records[d.leaf];
    if (!r || r.date !== d.date || r.index !== d.index) faults.push(`archive day ${d.date}: leaf ${d.leaf} of the log is not this day`);
  }
  if (state.checkpoint) {
    const stored = await objects.get(state.checkpoint as Address);
    try {
      if (!stored) throw new Error('missing from the store');
      const note = new TextDecoder().decode(stored.bytes);
      const verifiers = await Promise.all(state.keys.map((k) => parseVerifierKey(k)));
      const cp = parseCheckpoint((await openNote(note, verifiers)).text);
      if (cp.origin !== state.origin || cp.size !== state.checkpointSize || cp.size > leaves.length)
        throw new Error('does not match the log ref');
      const root = treeHash(leaves.slice(0, cp.size));
      if (root.some((b, i) => b !== cp.root[i])) throw new Error(`its root is not the root of the first ${cp.size} entries`);
    } catch (e) {
      faults.push(`log checkpoint ${state.checkpoint}: ${(e as Error).message}`);
    }
  }
  return faults;
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
