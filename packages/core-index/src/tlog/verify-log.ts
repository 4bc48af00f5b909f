import { type Address, addressOf } from '../index/blake3.js';
import { readCatalog } from '../index/catalog-shards.js';
import type { ObjectStore } from '../index/object-store.js';
import { ModelObjectSchema } from '../index/schemas.js';
import * as z from '../zod.js';
import { type LogEntry, LogEntrySchema } from './log-store.js';
import { type NoteError, openNote, parseCheckpoint, parseVerifierKey } from './note.js';
import {
  consistencyProof,
  equalHash,
  fromBase64,
  type Hash,
  hashTileBytes,
  inclusionProof,
  leafHash,
  parseBundle,
  tilePath,
  tilesForSize,
  toBase64,
  toHex,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from './tlog.js';

/**
 * Checking a hub's transparency log from outside (design 10.4), on any runtime: the checkpoint's signature, every
 * tile and entry bundle against it, the inclusion of one day, the consistency with the checkpoint seen before, and
 * the walk from that day's catalog down to each file's SHA-256. Nothing the hub says is taken on trust: the verifier
 * key comes from the caller, every tile is recomputed from the entries, every object is hashed.
 */

export type LogFailure = 'fetch' | 'signature' | 'entries' | 'tile' | 'inclusion' | 'consistency' | 'rewritten' | 'day' | 'objects';

export class LogVerifyError extends Error {
  constructor(
    readonly failure: LogFailure,
    message: string,
    /** For `rewritten`: the first day whose leaf differs from the one seen before. */
    readonly firstDifferingDay?: string,
  ) {
    super(message);
  }
}

/** What a verifier keeps between runs: the last checkpoint it accepted and the leaves it covered. */
export const LogSeenSchema = z.object({
  format: z.literal('svc.model-hub.log-seen/v1'),
  origin: z.string(),
  size: z.number().int().positive(),
  root: z.string(),
  checkpoint: z.string(),
  leaves: z.array(z.object({ date: z.string(), hash: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type LogSeen = z.Infer<typeof LogSeenSchema>;

export interface VerifyLogOptions {
  /** The log prefix URL (`…/api/hub/log`); a URL ending in `/checkpoint` is taken as that prefix's checkpoint. */
  url: string;
  /** Verifier keys in the note format; at least one must have signed. */
  keys: readonly string[];
  /** GET a URL's bytes; throws (any error) when it cannot. */
  get: (url: string) => Promise<Uint8Array>;
  /** The state seen before (consistency is proven from it). */
  seen?: LogSeen;
  /** The day whose inclusion is proven (its newest leaf); default: the newest leaf. */
  day?: string;
}

export interface VerifiedLog {
  origin: string;
  size: number;
  root: Hash;
  signedBy: string[];
  entries: LogEntry[];
  /** The proven day: its leaf index and record. */
  leaf: number;
  entry: LogEntry;
  /** The new state to keep. */
  seen: LogSeen;
  /** The size of the checkpoint the consistency was proven from (undefined without one). */
  consistentFrom?: number;
}

export function logPrefix(url: string): string {
  const u = url.replace(/\/+$/, '');
  return u.endsWith('/checkpoint') ? u.slice(0, -'/checkpoint'.length) : u;
}

async function fetchOr(get: VerifyLogOptions['get'], url: string, what: string): Promise<Uint8Array> {
  try {
    return await get(url);
  } catch (e) {
    throw new LogVerifyError('fetch', `cannot fetch ${what} (${url}): ${(e as Error).message}`);
  }
}

export async function verifyLog(o: VerifyLogOptions): Promise<VerifiedLog> {
  const prefix = logPrefix(o.url);
  const verifiers = await Promise.all(
    o.keys.map((k) =>
      parseVerifierKey(k).catch((e: Error) => {
        throw new LogVerifyError('signature', `verifier key: ${e.message}`);
      }),
    ),
  );
  // 1. The checkpoint: a note signed by a known key, then its text.
  const note = new TextDecoder('utf-8', { fatal: false }).decode(await fetchOr(o.get, `${prefix}/checkpoint`, 'the checkpoint'));
  let opened: { text: string; signedBy: string[] };
  let cp: ReturnType<typeof parseCheckpoint>;
  try {
    opened = await openNote(note, verifiers);
    cp = parseCheckpoint(opened.text);
  } catch (e) {
    throw new LogVerifyError('signature', `the checkpoint does not verify: ${(e as NoteError).message}`);
  }
  if (cp.size === 0) throw new LogVerifyError('entries', 'the checkpoint covers an empty log');
  if (o.seen && o.seen.origin !== cp.origin)
    throw new LogVerifyError('signature', `the checkpoint's origin is ${cp.origin}; the log seen before was ${o.seen.origin}`);

  // 2. The entries, from the bundles, and their leaf hashes.
  const raw: Uint8Array[] = [];
  for (const t of tilesForSize(cp.size).filter((x) => x.level === 'entries')) {
    let got: Uint8Array[];
    try {
      got = parseBundle(await fetchOr(o.get, `${prefix}/${tilePath(t)}`, 'an entry bundle'));
    } catch (e) {
      if (e instanceof LogVerifyError) throw e;
      throw new LogVerifyError('entries', `${tilePath(t)}: ${(e as Error).message}`);
    }
    if (got.length !== t.width) throw new LogVerifyError('entries', `${tilePath(t)} holds ${got.length} entries, not ${t.width}`);
    raw.push(...got);
  }
  const leaves = raw.map(leafHash);

  // 3. Every hash tile must be what the entries make it, and the entries must make the signed root.
  for (const t of tilesForSize(cp.size)) {
    if (t.level === 'entries') continue;
    const served = await fetchOr(o.get, `${prefix}/${tilePath(t)}`, 'a tile');
    if (!equalHash(served, hashTileBytes(leaves, { ...t, level: t.level })))
      throw new LogVerifyError('tile', `${tilePath(t)} does not match the log's entries`);
  }
  const root = treeHash(leaves);
  if (!equalHash(root, cp.root)) {
    const first = o.seen ? firstDifference(o.seen, leaves, raw) : undefined;
    throw new LogVerifyError(
      first ? 'rewritten' : 'entries',
      first ? rewrittenMessage(first, o.seen as LogSeen) : "the log's entries do not hash to the signed root",
      first?.date,
    );
  }

  // 4. The records: each parses and names the leaf before it.
  const entries: LogEntry[] = [];
  for (const [i, bytes] of raw.entries()) {
    const parsed = LogEntrySchema.safeParse(safeJson(bytes));
    if (!parsed.success) throw new LogVerifyError('entries', `entry ${i} is not a model-hub.log-entry record`);
    const prev = i === 0 ? null : toHex(leaves[i - 1] as Hash);
    if (parsed.data.prev !== prev) throw new LogVerifyError('entries', `entry ${i} (${parsed.data.date}) does not name the leaf before it`);
    entries.push(parsed.data);
  }

  // 5. Consistency with what was seen before: the old tree is a prefix of the new one.
  let consistentFrom: number | undefined;
  if (o.seen) {
    const m = o.seen.size;
    const oldRoot = fromBase64(o.seen.root) ?? new Uint8Array(0);
    const first = firstDifference(o.seen, leaves, raw);
    const ok = m <= cp.size && verifyConsistency(m, cp.size, oldRoot, cp.root, consistencyProof(m, leaves));
    if (!ok || first) {
      if (first) throw new LogVerifyError('rewritten', rewrittenMessage(first, o.seen), first.date);
      throw new LogVerifyError(
        'consistency',
        m > cp.size
          ? `the log shrank: ${cp.size} leaves now, ${m} in the checkpoint seen before`
          : `the log is not consistent with the checkpoint of size ${m} seen before`,
      );
    }
    consistentFrom = m;
  }

  // 6. The chosen day's inclusion in the signed tree.
  let leaf = entries.length - 1;
  if (o.day) {
    leaf = entries.map((e) => e.date).lastIndexOf(o.day);
    if (leaf < 0) throw new LogVerifyError('day', `the log has no leaf for ${o.day}`);
  }
  if (!verifyInclusion(leaf, cp.size, leaves[leaf] as Hash, inclusionProof(leaf, leaves), cp.root))
    throw new LogVerifyError('inclusion', `leaf ${leaf} is not included in the signed tree`);

  const seen: LogSeen = {
    format: 'svc.model-hub.log-seen/v1',
    origin: cp.origin,
    size: cp.size,
    root: toBase64(cp.root),
    checkpoint: note,
    leaves: entries.map((e, i) => ({ date: e.date, hash: toHex(leaves[i] as Hash) })),
  };
  return {
    origin: cp.origin,
    size: cp.size,
    root: cp.root,
    signedBy: opened.signedBy,
    entries,
    leaf,
    entry: entries[leaf] as LogEntry,
    seen,
    ...(consistentFrom !== undefined ? { consistentFrom } : {}),
  };
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The first leaf seen before that the log now holds differently (or no longer holds). */
function firstDifference(
  seen: LogSeen,
  leaves: readonly Hash[],
  raw: readonly Uint8Array[],
): { leaf: number; date: string; now?: string } | undefined {
  for (const [i, s] of seen.leaves.entries()) {
    const now = leaves[i];
    if (now && toHex(now) === s.hash) continue;
    const parsed = raw[i] ? LogEntrySchema.safeParse(safeJson(raw[i] as Uint8Array)) : undefined;
    return { leaf: i, date: s.date, ...(parsed?.success ? { now: parsed.data.index } : {}) };
  }
  return undefined;
}

function rewrittenMessage(first: { leaf: number; date: string; now?: string }, seen: LogSeen): string {
  return `the log was rewritten: day ${first.date} (leaf ${first.leaf}) differs from the one seen before${
    first.now ? ` (it now names ${first.now})` : ''
  }; the checkpoint of size ${seen.size} seen before is not a prefix of this log`;
}

export interface DayWalk {
  catalog: Address;
  models: number;
  files: number;
  /** `owner/name` → path → SHA-256, from the model objects the catalog names. */
  sha256: Map<string, Map<string, string>>;
}

/**
 * Walk one day from its catalog down to the files' SHA-256 through `get` (an object by address, e.g. over
 * `GET /api/v1/objects/{address}`): every object must hash to its address and match its schema, and every model
 * object must name the model its catalog entry is for. Throws {@link LogVerifyError} (`objects`) on the first fault.
 */
export async function walkDay(
  catalog: Address,
  get: (address: Address) => Promise<Uint8Array | undefined>,
  concurrency = 8,
): Promise<DayWalk> {
  const objects: Pick<ObjectStore, 'get'> = {
    get: async (address) => {
      const bytes = await get(address);
      return bytes
        ? { bytes, meta: { id: address, kind: '', media_type: '', size: bytes.byteLength, created_at_millis: 0, filename: null } }
        : undefined;
    },
  };
  let root: Awaited<ReturnType<typeof readCatalog>>;
  try {
    root = await readCatalog(objects as ObjectStore, catalog);
  } catch (e) {
    throw new LogVerifyError('objects', (e as Error).message);
  }
  const sha256 = new Map<string, Map<string, string>>();
  const ids = Object.keys(root.objects);
  let files = 0;
  for (let i = 0; i < ids.length; i += concurrency) {
    await Promise.all(
      ids.slice(i, i + concurrency).map(async (id) => {
        const address = root.objects[id]?.model as Address;
        const bytes = await get(address);
        if (!bytes) throw new LogVerifyError('objects', `model ${id}: object ${address} is missing`);
        if (addressOf(bytes) !== address)
          throw new LogVerifyError('objects', `model ${id}: object ${address} does not hash to its address`);
        const parsed = ModelObjectSchema.safeParse(safeJson(bytes));
        if (!parsed.success || parsed.data.id !== id)
          throw new LogVerifyError('objects', `model ${id}: object ${address} is not its model object`);
        sha256.set(id, new Map(parsed.data.files.map((f) => [f.path, f.sha256] as const)));
        files += parsed.data.files.length;
      }),
    );
  }
  return { catalog, models: ids.length, files, sha256 };
}
