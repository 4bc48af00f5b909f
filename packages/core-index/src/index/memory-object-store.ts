import type { Address } from './blake3.js';
import {
  type ListPage,
  type ListQuery,
  newObjectMetadata,
  type ObjectStore,
  type PutOptions,
  REF_NAME,
  type StoredObject,
} from './object-store.js';
import type { ObjectMetadata } from './schemas.js';

/** An in-memory {@link ObjectStore}, for tests and for tools that build an index without a disk. */
export class MemoryObjectStore implements ObjectStore {
  private readonly objects = new Map<string, StoredObject>();
  private readonly refs = new Map<string, string>();
  constructor(private readonly now: () => number = Date.now) {}

  async get(address: Address) {
    return this.objects.get(address);
  }

  /** A byte range of an object (a copy), at once; undefined when it is missing or shorter. */
  readRange(address: Address, start: number, length: number): Uint8Array | undefined {
    const bytes = this.objects.get(address)?.bytes;
    return bytes && start >= 0 && length >= 0 && start + length <= bytes.length ? bytes.slice(start, start + length) : undefined;
  }

  async meta(address: Address) {
    return this.objects.get(address)?.meta;
  }

  async has(address: Address) {
    return this.objects.has(address);
  }

  async put(bytes: Uint8Array, options: PutOptions) {
    const meta = newObjectMetadata(bytes, options, this.now());
    const id = meta.id as Address;
    const existing = this.objects.get(id);
    if (existing) return { meta: existing.meta, created: false };
    this.objects.set(id, { bytes: bytes.slice(), meta });
    return { meta, created: true };
  }

  async list(query: ListQuery): Promise<ListPage> {
    return listFrom(
      [...this.objects.values()].map((o) => o.meta),
      query,
    );
  }

  async readRef(name: string) {
    return this.refs.get(name);
  }

  async writeRef(name: string, value: string) {
    if (!REF_NAME.test(name)) throw new Error(`invalid ref name ${JSON.stringify(name)}`);
    this.refs.set(name, value);
  }
}

/** Filter, order (by address) and page object metadata; shared by every backend's `list`. */
export function listFrom(all: Iterable<ObjectMetadata>, query: ListQuery): ListPage {
  const limit = Math.max(1, Math.min(query.limit ?? 100, 1000));
  let prefix = query.prefix ?? '';
  if (prefix && !prefix.startsWith('blake3:')) prefix = `blake3:${prefix}`;
  const items = [...all]
    .filter((m) => (!query.kind || m.kind === query.kind) && (!prefix || m.id.startsWith(prefix)) && (!query.cursor || m.id > query.cursor))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const page = items.slice(0, limit);
  return { items: page, next: items.length > limit ? (page[page.length - 1]?.id ?? null) : null };
}
