/**
 * Checking a hub's history before trusting it (design 10.4), with `fetch` only: the transparency log's checkpoint,
 * tiles and entries (`verifyLog` of core-index), then the chosen day walked down to every file's SHA-256, or one
 * model's files for `hub get --verify-log`.
 */
import {
  type Address,
  addressOf,
  CatalogObjectSchema,
  CatalogShardSchema,
  type DayWalk,
  type LogSeen,
  LogVerifyError,
  logPrefix,
  ModelObjectSchema,
  type VerifiedLog,
  verifyLog,
  walkDay,
} from '@hub/core-index';

export interface LogCheckOptions {
  /** The log's checkpoint URL or prefix; default `{hub}/api/hub/log`. */
  log?: string;
  /** The hub whose objects are walked; default the log URL's origin. */
  hub?: string;
  /** Verifier keys (note format), obtained from the operator out of band. */
  keys: readonly string[];
  /** The state kept from the last run (consistency is proven from its checkpoint). */
  seen?: LogSeen;
  /** The day to prove and walk (default the newest). */
  day?: string;
  fetch?: typeof fetch;
}

const trim = (s: string) => s.replace(/\/+$/, '');

function getter(f: typeof fetch) {
  return async (url: string): Promise<Uint8Array> => {
    const r = await f(url);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  };
}

function places(o: LogCheckOptions): { log: string; hub: string } {
  const log = logPrefix(o.log ?? `${trim(o.hub ?? '')}/api/hub/log`);
  return { log, hub: trim(o.hub ?? new URL(log).origin) };
}

function objectGetter(f: typeof fetch, hub: string) {
  return async (address: Address): Promise<Uint8Array | undefined> => {
    const r = await f(`${hub}/api/v1/objects/${address}`);
    if (r.status === 404) return undefined;
    if (!r.ok) throw new LogVerifyError('objects', `object ${address}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  };
}

/** Verify the log (signature, tiles, the day's inclusion, consistency with `seen`) and walk the day to file SHA-256. */
export async function verifyHubLog(o: LogCheckOptions): Promise<VerifiedLog & { walk: DayWalk }> {
  const f = o.fetch ?? fetch;
  const { log, hub } = places(o);
  const verified = await verifyLog({
    url: log,
    keys: o.keys,
    get: getter(f),
    ...(o.seen ? { seen: o.seen } : {}),
    ...(o.day ? { day: o.day } : {}),
  });
  const walk = await walkDay(verified.entry.catalog as Address, objectGetter(f, hub));
  return { ...verified, walk };
}

/**
 * The files of one model as the verified log says the hub indexed them: the hub's current catalog (its descriptor)
 * must be a day in the verified log, and the model's object, named by that catalog, gives each path's SHA-256.
 * Throws {@link LogVerifyError} when the day is not in the log or the model is not in that day.
 */
export async function modelFilesFromLog(
  o: LogCheckOptions,
  id: string,
): Promise<{ verified: VerifiedLog; date: string; files: Map<string, { size: number; sha256: string }> }> {
  const f = o.fetch ?? fetch;
  const { log, hub } = places(o);
  const verified = await verifyLog({ url: log, keys: o.keys, get: getter(f), ...(o.seen ? { seen: o.seen } : {}) });
  const r = await f(`${hub}/.well-known/model-hub.json`);
  const catalog = r.ok ? ((await r.json()) as { catalog?: string }).catalog : undefined;
  const leaf = verified.entries.map((e) => e.catalog).lastIndexOf(catalog ?? '');
  if (!catalog || leaf < 0)
    throw new LogVerifyError('day', `the hub serves catalog ${catalog ?? '(none)'}, which is no day of the verified log`);
  const get = objectGetter(f, hub);
  const json = async (address: string, what: string) => {
    const bytes = await get(address as Address);
    if (!bytes || addressOf(bytes) !== address)
      throw new LogVerifyError('objects', `${what} ${address} is missing or does not hash to its address`);
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  };
  const root = CatalogObjectSchema.parse(await json(catalog, 'catalog'));
  let entry = root.objects[id];
  for (const s of root.shards ?? []) {
    if (entry) break;
    entry = CatalogShardSchema.parse(await json(s.address, 'catalog shard')).objects[id];
  }
  if (!entry) throw new LogVerifyError('day', `${id} is not in the day ${verified.entries[leaf]?.date} of the verified log`);
  const model = ModelObjectSchema.parse(await json(entry.model, 'model object'));
  if (model.id !== id) throw new LogVerifyError('objects', `the model object of ${id} names ${model.id}`);
  return {
    verified,
    date: verified.entries[leaf]?.date as string,
    files: new Map(model.files.map((x) => [x.path, { size: x.size, sha256: x.sha256 }] as const)),
  };
}
