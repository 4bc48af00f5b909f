import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Address,
  isAddress,
  type ListPage,
  type ListQuery,
  listFrom,
  newObjectMetadata,
  ObjectCache,
  type ObjectMetadata,
  type ObjectStore,
  type PutOptions,
  REF_NAME,
  type StoredListing,
  type StoredObject,
} from '@hub/core-index';
import { DERIVED_MAX_BYTES, derivable, derivedMeta } from './derived-meta.js';
import { syncDir, tempName, writeDurable, writeFileAtomic } from './durable-files.js';
import { withFileLock } from './file-lease.js';
import { listObjects } from './fs-listing.js';
import { readRangeSync, readWholeSync } from './fs-read.js';
import { syncFs } from './sync-fs.js';

export { writeFileAtomic };

/** A batch of at least this many new objects is written with two filesystem flushes (see `writeBulk`). */
const BULK_BATCH = 32;

/** One new object of a batch: its temp files (`metaTmp` empty when its metadata is derived, not written). */
interface PendingWrite {
  p: PendingPut;
  paths: { bytes: string; meta: string };
  metaTmp: string;
  bytesTmp: string;
}

interface PendingPut {
  id: Address;
  meta: ObjectMetadata;
  bytes: Uint8Array;
  resolve: (r: { meta: ObjectMetadata; created: boolean }) => void;
  reject: (e: unknown) => void;
}

/**
 * The file holding an address's bytes under a store's objects folder (`objects/ab/<64 hex>`, the layout of
 * {@link FsObjectStore}), for readers of the folder that hold no store (`hub index verify`'s worker threads). No
 * `path.join`: it is on the hot path of every read.
 */
export function objectFile(objectsDir: string, address: string): string {
  return `${objectsDir}${path.sep}${address.slice(7, 9)}${path.sep}${address.slice(7)}`;
}

/**
 * Objects on disk: `objects/ab/<64 hex>` holds the bytes and `objects/ab/<64 hex>.meta` its metadata, except for a
 * JSON object whose metadata is derived from it (derived-meta.ts: no `.meta` file). The bytes file is written last, so
 * an object is visible only once it is whole.
 */
export class FsObjectStore implements ObjectStore {
  private readonly objectsDir: string;
  private readonly refsDir: string;
  private readonly locksDir: string;
  /** Objects never change, so whole objects are cached in memory (least recently used out first). */
  private readonly cache: ObjectCache;
  constructor(
    root: string,
    private readonly now: () => number = Date.now,
    /** the most bytes of objects kept in memory (a host gives its cache budget's `objects` share) */
    cacheLimitBytes = 64 * 1024 * 1024,
  ) {
    this.cache = new ObjectCache(cacheLimitBytes);
    this.objectsDir = path.join(root, 'objects');
    this.refsDir = path.join(root, 'refs');
    this.locksDir = path.join(root, 'locks');
  }

  cachedBytes(): number {
    return this.cache.bytes;
  }

  private paths(address: Address) {
    const bytes = this.bytesPath(address);
    return { bytes, meta: `${bytes}.meta` };
  }

  async get(address: Address): Promise<StoredObject | undefined> {
    const hit = this.cache.get(address);
    if (hit) return hit;
    if (!isAddress(address)) return undefined;
    const p = this.paths(address);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(p.bytes));
    } catch {
      return undefined;
    }
    const meta = (await this.readMeta(address, bytes)) as ObjectMetadata;
    const obj = { bytes, meta };
    this.cache.set(address, obj);
    return obj;
  }

  /** The bytes file alone, read synchronously and not cached here (the paged store keeps what it parsed; fs-read.ts). */
  readBytes(address: Address): Uint8Array | undefined {
    if (!isAddress(address)) return undefined;
    const hit = this.cache.get(address);
    if (hit) return hit.bytes;
    return readWholeSync(this.bytesPath(address));
  }

  /** `length` bytes from byte `start` (a model inside its models page), read synchronously (fs-read.ts). */
  readRange(address: Address, start: number, length: number): Uint8Array | undefined {
    return isAddress(address) ? readRangeSync(this.bytesPath(address), start, length) : undefined;
  }

  /** The bytes file of an address (the hot path of {@link readBytes}). */
  private bytesPath(address: Address): string {
    return objectFile(this.objectsDir, address);
  }

  /** The `.meta` file, or else the metadata derived from the object (its bytes read here when not given). */
  private async readMeta(address: Address, bytes?: Uint8Array): Promise<ObjectMetadata | undefined> {
    const p = this.paths(address);
    try {
      return JSON.parse(await readFile(p.meta, 'utf8')) as ObjectMetadata;
    } catch {
      try {
        const st = await stat(p.bytes);
        if (!bytes && st.size <= DERIVED_MAX_BYTES) bytes = new Uint8Array(await readFile(p.bytes));
        return derivedMeta(address, bytes, st.size, st.mtimeMs);
      } catch {
        return undefined;
      }
    }
  }

  async meta(address: Address) {
    if (!(await this.has(address))) return undefined;
    return this.readMeta(address);
  }

  /**
   * One synchronous `access` of the bytes file (a build asks it of every object it reuses: a pool trip cost 10× more,
   * and a `stat` twice an `access`, measured, for the object it makes).
   */
  async has(address: Address) {
    return this.hasSync(address);
  }

  /** {@link has} of many: each checked as `has` checks it, in one call (no promise per object). */
  async missing(addresses: readonly Address[]): Promise<Address[]> {
    return addresses.filter((a) => !this.hasSync(a));
  }

  /** The objects stored now (`ObjectStore.listing`; fs-listing.ts): one read of each fan-out folder. */
  async listing(): Promise<StoredListing> {
    return listObjects(this.objectsDir, (a) => this.cache.has(a));
  }

  private hasSync(address: Address): boolean {
    if (this.cache.has(address)) return true;
    return isAddress(address) && existsSync(this.bytesPath(address));
  }

  async put(bytes: Uint8Array, options: PutOptions): Promise<{ meta: ObjectMetadata; created: boolean }> {
    const meta = newObjectMetadata(bytes, options, this.now());
    const id = meta.id as Address;
    const hit = this.cache.get(id);
    if (hit) return { meta: hit.meta, created: false };
    // Group commit: puts made in the same turn of the event loop, or while the batch before is being written, are
    // written together (see flush); one batch is written at a time.
    return new Promise((resolve, reject) => {
      this.pending.push({ id, meta, bytes, resolve, reject });
      if (this.pending.length === 1 && !this.flushing) setImmediate(() => this.nextBatch());
    });
  }

  private flushing = false; // a batch is being written

  private nextBatch(): void {
    if (this.flushing || this.pending.length === 0) return;
    this.flushing = true;
    void this.flush().finally(() => {
      this.flushing = false;
      if (this.pending.length > 0) setImmediate(() => this.nextBatch());
    });
  }

  private pending: PendingPut[] = [];
  /** Fan-out folders known to exist (created once, not once per write). */
  private readonly madeDirs = new Set<string>();

  /**
   * The stored metadata when the object's bytes file exists (synchronous: one stat, cheaper than a pool trip). An
   * object without a `.meta` file has the bytes being put (the same address), so its metadata is derived from them.
   */
  private existingSync(id: Address, bytes: Uint8Array): ObjectMetadata | undefined {
    const p = this.paths(id);
    const st = statSync(p.bytes, { throwIfNoEntry: false });
    if (!st) return undefined;
    try {
      // (a missing .meta file is the usual case now: no exception thrown and caught for it)
      if (statSync(p.meta, { throwIfNoEntry: false })) return JSON.parse(readFileSync(p.meta, 'utf8')) as ObjectMetadata;
    } catch {}
    return derivedMeta(id, bytes, st.size, st.mtimeMs);
  }

  /**
   * Write one batch of puts. Every new object's metadata and bytes go to temp files in its fan-out folder and are made
   * durable (see {@link durableWrites}); then every metadata file is renamed to its name, then every bytes file; then
   * the renames are made durable. So an object is either whole under its name or absent at any crash (a bytes file is
   * only renamed after its content is durable), its metadata is in place before its bytes (renames in one folder are
   * journaled in order), and a put resolves only when its object is durable, so a ref written after its objects' puts
   * never names an absent object.
   */
  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const fresh = new Map<Address, PendingPut>();
    const later: Array<[PendingPut, PendingPut]> = [];
    for (const p of batch) {
      const first = fresh.get(p.id);
      if (first) {
        later.push([p, first]);
        continue;
      }
      let existing: ObjectMetadata | undefined;
      try {
        existing = this.existingSync(p.id, p.bytes);
      } catch (e) {
        p.reject(e);
        continue;
      }
      if (existing) p.resolve({ meta: existing, created: false });
      else fresh.set(p.id, p);
    }
    const writes = [...fresh.values()].map((p) => ({ p, paths: this.paths(p.id), metaTmp: '', bytesTmp: '' }));
    try {
      for (const w of writes) {
        const dir = path.dirname(w.paths.bytes);
        if (!this.madeDirs.has(dir)) {
          await mkdir(dir, { recursive: true });
          this.madeDirs.add(dir);
        }
        // No `.meta` file for metadata derived from the object itself (one file created per object, not two).
        if (!derivable(w.p.meta, w.p.bytes)) w.metaTmp = tempName(dir);
        w.bytesTmp = tempName(dir);
      }
      if (writes.length >= BULK_BATCH && (await this.canSyncFs())) await this.writeBulk(writes);
      else await this.writeEach(writes);
    } catch (e) {
      await Promise.all(writes.flatMap((w) => [w.metaTmp, w.bytesTmp].filter(Boolean).map((t) => unlink(t).catch(() => {}))));
      for (const w of writes) w.p.reject(e);
      for (const [p] of later) p.reject(e);
      return;
    }
    for (const w of writes) w.p.resolve({ meta: w.p.meta, created: true });
    for (const [p, first] of later) p.resolve({ meta: first.meta, created: false });
  }

  /** A small batch: each temp file written and fsynced on the thread pool, then renamed; each folder fsynced once. */
  private async writeEach(writes: PendingWrite[]): Promise<void> {
    const written = await Promise.allSettled(
      writes.flatMap((w) => [
        ...(w.metaTmp ? [writeDurable(w.metaTmp, JSON.stringify(w.p.meta))] : []),
        writeDurable(w.bytesTmp, w.p.bytes),
      ]),
    );
    const failed = written.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    // Every metadata file before any bytes file: an object is visible (its bytes file) only with its metadata.
    await Promise.all(writes.map((w) => w.metaTmp && rename(w.metaTmp, w.paths.meta)));
    await Promise.all(writes.map((w) => rename(w.bytesTmp, w.paths.bytes)));
    await Promise.all([...new Set(writes.map((w) => path.dirname(w.paths.bytes)))].map(syncDir));
  }

  /**
   * A large batch (a build writes thousands of objects a second): the temp files are written without an fsync each,
   * then ONE flush of the filesystem (syncfs(2), through `sync -f`) makes all their contents durable, then they are
   * renamed (metadata first) and a second flush makes the renames durable. The same guarantees as {@link writeEach}
   * (no file is ever under an object's name before its content is durable), with two flushes per batch instead of
   * two fsyncs per object and one per folder (docs/decisions/scale-and-speed.md, "A build of any size").
   */
  private async writeBulk(writes: PendingWrite[]): Promise<void> {
    // On the thread pool, in parallel: creating a file waits on the filesystem's journal far more than on the CPU.
    const written = await Promise.allSettled(
      writes.flatMap((w) => [
        ...(w.metaTmp ? [writeFile(w.metaTmp, JSON.stringify(w.p.meta), { flag: 'wx', mode: 0o644 })] : []),
        writeFile(w.bytesTmp, w.p.bytes, { flag: 'wx', mode: 0o644 }),
      ]),
    );
    const failed = written.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    await syncFs(this.objectsDir);
    for (const w of writes) if (w.metaTmp) renameSync(w.metaTmp, w.paths.meta);
    for (const w of writes) {
      renameSync(w.bytesTmp, w.paths.bytes);
      w.metaTmp = '';
      w.bytesTmp = '';
    }
    await syncFs(this.objectsDir);
  }

  private syncFsWorks: Promise<boolean> | undefined;
  /** Whether `sync -f` flushes this store's filesystem here (Linux coreutils); else every file is fsynced. */
  private canSyncFs(): Promise<boolean> {
    this.syncFsWorks ??= syncFs(this.objectsDir).then(
      () => true,
      () => false,
    );
    return this.syncFsWorks;
  }

  async list(query: ListQuery): Promise<ListPage> {
    const metas: ObjectMetadata[] = [];
    for await (const address of this.addresses()) {
      const meta = await this.readMeta(address);
      if (meta) metas.push(meta);
    }
    return listFrom(metas, query);
  }

  async readRef(name: string) {
    if (!REF_NAME.test(name)) return undefined;
    try {
      return await readFile(path.join(this.refsDir, name), 'utf8');
    } catch {
      return undefined;
    }
  }

  async writeRef(name: string, value: string) {
    if (!REF_NAME.test(name)) throw new Error(`invalid ref name ${JSON.stringify(name)}`);
    await writeFileAtomic(path.join(this.refsDir, name), value);
  }

  /**
   * Run a read-modify-write of the ref `name` holding `locks/ref-NAME.lock` against every process sharing this data
   * folder (issue 41); within one process the callers already queue their changes.
   */
  withRefLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (!REF_NAME.test(name)) throw new Error(`invalid ref name ${JSON.stringify(name)}`);
    return withFileLock(path.join(this.locksDir, `ref-${name}.lock`), fn);
  }

  /** Every stored address (for `hub index verify`). */
  async *addresses(): AsyncGenerator<Address> {
    let shards: string[] = [];
    try {
      shards = await readdir(this.objectsDir);
    } catch {
      return;
    }
    for (const shard of shards.sort()) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of (await readdir(path.join(this.objectsDir, shard))).sort()) {
        if (/^[0-9a-f]{64}$/.test(name)) yield `blake3:${name}`;
      }
    }
  }

  /** The folder of the objects' files (`objects/ab/<64 hex>`), for `hub index verify`'s worker threads. */
  objectsFolder(): string {
    return this.objectsDir;
  }

  /** The raw bytes on disk, without any check (verify re-hashes them). */
  async rawBytes(address: Address): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.paths(address).bytes));
    } catch {
      return undefined;
    }
  }
}
