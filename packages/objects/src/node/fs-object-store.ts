import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
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
  type StoredObject,
} from '@hub/core-index';

let tmpCounter = 0;

/**
 * Write a file so that it is either absent or whole: write a temp file in the same folder, fsync
 * it, rename it over the target, and fsync the folder. A crash at any point leaves no partial file
 * under the target name.
 */
export async function writeFileAtomic(target: string, bytes: Uint8Array | string): Promise<void> {
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.tmp-${process.pid}-${Date.now()}-${tmpCounter++}`);
  const fh = await open(tmp, constants.O_CREAT | constants.O_WRONLY | constants.O_EXCL, 0o644);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fh.close();
  await rename(tmp, target);
  try {
    const d = await open(dir, 'r');
    await d.sync().catch(() => {});
    await d.close();
  } catch {
    // Some filesystems do not allow opening folders; the rename is still atomic.
  }
}

/**
 * Objects on disk: `objects/ab/<64 hex>` holds the bytes and `objects/ab/<64 hex>.meta` its
 * metadata. The bytes file is written last, so an object is visible only once it is whole.
 */
export class FsObjectStore implements ObjectStore {
  private readonly objectsDir: string;
  private readonly refsDir: string;
  /** Objects never change, so whole objects are cached in memory (least recently used out first). */
  private readonly cache: ObjectCache;
  constructor(
    root: string,
    private readonly now: () => number = Date.now,
    cacheLimitBytes = 64 * 1024 * 1024,
  ) {
    this.cache = new ObjectCache(cacheLimitBytes);
    this.objectsDir = path.join(root, 'objects');
    this.refsDir = path.join(root, 'refs');
  }

  private paths(address: Address) {
    const hex = address.slice('blake3:'.length);
    const dir = path.join(this.objectsDir, hex.slice(0, 2));
    return { bytes: path.join(dir, hex), meta: path.join(dir, `${hex}.meta`) };
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
    const meta = (await this.readMeta(address, bytes.byteLength)) as ObjectMetadata;
    const obj = { bytes, meta };
    this.cache.set(address, obj);
    return obj;
  }

  private async readMeta(address: Address, size?: number): Promise<ObjectMetadata | undefined> {
    const p = this.paths(address);
    try {
      return JSON.parse(await readFile(p.meta, 'utf8')) as ObjectMetadata;
    } catch {
      if (size === undefined) {
        try {
          size = (await stat(p.bytes)).size;
        } catch {
          return undefined;
        }
      }
      return { id: address, kind: 'unknown', media_type: 'application/octet-stream', size, created_at_millis: 0, filename: null };
    }
  }

  async meta(address: Address) {
    if (!(await this.has(address))) return undefined;
    return this.readMeta(address);
  }

  async has(address: Address) {
    if (this.cache.has(address)) return true;
    if (!isAddress(address)) return false;
    try {
      await stat(this.paths(address).bytes);
      return true;
    } catch {
      return false;
    }
  }

  async put(bytes: Uint8Array, options: PutOptions) {
    const meta = newObjectMetadata(bytes, options, this.now());
    const id = meta.id as Address;
    const existing = await this.meta(id);
    if (existing) return { meta: existing, created: false };
    const p = this.paths(id);
    await writeFileAtomic(p.meta, JSON.stringify(meta));
    await writeFileAtomic(p.bytes, bytes);
    return { meta, created: true };
  }

  async list(query: ListQuery): Promise<ListPage> {
    const metas: ObjectMetadata[] = [];
    let shards: string[] = [];
    try {
      shards = await readdir(this.objectsDir);
    } catch {
      return { items: [], next: null };
    }
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await readdir(path.join(this.objectsDir, shard))) {
        if (!/^[0-9a-f]{64}$/.test(name)) continue;
        const meta = await this.readMeta(`blake3:${name}`);
        if (meta) metas.push(meta);
      }
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

  /** The raw bytes on disk, without any check (verify re-hashes them). */
  async rawBytes(address: Address): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.paths(address).bytes));
    } catch {
      return undefined;
    }
  }
}
