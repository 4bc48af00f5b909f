/**
 * A catalog's object entries (each id's model and source addresses), for a build without a memo that knows them
 * (builder.ts): read one shard at a time and held compactly (the ids in one string, the model addresses as 32 bytes
 * each, the source addresses' first 8 bytes, about 80 bytes a model), where the whole catalog read as objects, rows and all, held 1.3 GB of heap at 1,000,000
 * models before its build had read a fifth of them.
 */
import type { Address } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import { keyHash } from '../index/page-layout.js';
import { DigestList, U32List } from '../index/page-tables.js';

const decoder = new TextDecoder();
const ADDRESS = /^blake3:[0-9a-f]{64}$/;

/** An id's entry in a catalog: its model's address and its sources' (`blake3:` and 64 hex digits each). */
export interface CatalogEntry {
  model: string;
  /**
   * each source's address, or (from {@link CatalogEntries}) its first 8 bytes alone (`blake3:` and 16 hex digits:
   * {@link SOURCE_PREFIX} characters): a source object the catalog named is then known by that prefix, and a false
   * match only costs the store a `has`
   */
  sources: string[];
}

/** The length of a source address as {@link CatalogEntries} keeps it: `blake3:` and 16 hex digits. */
export const SOURCE_PREFIX = 'blake3:'.length + 16;

export class CatalogEntries {
  private readonly hashes = new U32List();
  private readonly starts = new U32List();
  /** the ids of the part being read, then of each part joined */
  private readonly ids: string[] = [];
  private readonly parts: string[] = [];
  private joined = '';
  private readonly models = new DigestList();
  private readonly firstSource = new U32List();
  /** each source address's first 8 bytes, as two numbers */
  private readonly sourceHi = new U32List();
  private readonly sourceLo = new U32List();
  /** entries whose addresses are not in the usual form, kept as they are */
  private readonly odd = new Map<string, CatalogEntry>();
  private order: Uint32Array | undefined;
  private length = 0;

  private add(id: string, e: CatalogEntry): void {
    if (!ADDRESS.test(e.model) || !e.sources.every((s) => ADDRESS.test(s))) {
      this.odd.set(id, { model: e.model, sources: [...e.sources] });
      return;
    }
    this.hashes.push(keyHash(id));
    this.starts.push(this.length);
    this.ids.push(id);
    this.length += id.length;
    this.models.push(e.model.slice(7));
    this.firstSource.push(this.sourceHi.length);
    for (const s of e.sources) {
      this.sourceHi.push(Number.parseInt(s.slice(7, 15), 16));
      this.sourceLo.push(Number.parseInt(s.slice(15, 23), 16));
    }
  }

  /** A part is read: its ids joined into one string (so the strings the parse made can go). */
  private partDone(): void {
    this.parts.push(this.ids.join(''));
    this.ids.length = 0;
  }

  /** Every part is in: the ids joined into one string, ordered by their hash. */
  private seal(): void {
    this.joined = this.parts.join('');
    this.parts.length = 0;
    const n = this.hashes.length;
    this.starts.push(this.length);
    this.firstSource.push(this.sourceHi.length);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    this.order = order.sort((a, b) => this.hashes.get(a) - this.hashes.get(b));
  }

  /** The entry of `id`, if the catalog has it. */
  get(id: string): CatalogEntry | undefined {
    const odd = this.odd.get(id);
    if (odd) return odd;
    const order = this.order as Uint32Array;
    const h = keyHash(id);
    let [lo, hi] = [0, order.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.hashes.get(order[mid] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    for (; lo < order.length && this.hashes.get(order[lo] as number) === h; lo++) {
      const i = order[lo] as number;
      const start = this.starts.get(i);
      if (this.starts.get(i + 1) - start !== id.length || !this.joined.startsWith(id, start)) continue;
      const sources: string[] = [];
      const hex = (v: number) => v.toString(16).padStart(8, '0');
      for (let s = this.firstSource.get(i); s < this.firstSource.get(i + 1); s++)
        sources.push(`blake3:${hex(this.sourceHi.get(s))}${hex(this.sourceLo.get(s))}`);
      return { model: `blake3:${this.models.hexOf(i)}`, sources };
    }
    return undefined;
  }

  /**
   * The entries of the catalog at `address` (its root, then each shard in turn, as stored: a catalog the archive names
   * was checked when it was written), or undefined when there is none or it cannot be read (nothing is skipped then).
   */
  static async read(objects: ObjectStore, address: Address | undefined): Promise<CatalogEntries | undefined> {
    if (!address) return undefined;
    try {
      const json = async <T>(a: string): Promise<T> => {
        const stored = await objects.get(a as Address);
        if (!stored) throw new Error(`catalog object ${a} is missing`);
        return JSON.parse(decoder.decode(stored.bytes)) as T;
      };
      type Part = { objects?: Record<string, CatalogEntry> };
      const out = new CatalogEntries();
      const root = await json<Part & { shards?: Array<{ address: string }> }>(address);
      const addAll = (part: Part) => {
        for (const [id, e] of Object.entries(part.objects ?? {})) out.add(id, e);
        out.partDone();
      };
      addAll(root);
      for (const shard of root.shards ?? []) addAll(await json<Part>(shard.address));
      out.seal();
      return out;
    } catch {
      return undefined;
    }
  }
}

/**
 * The catalog entries a build without a memo reads: yesterday's (`base`) and, when the same day is built again, that
 * day's (`same`: its objects need not be put again either), each read once when first asked, let go at the end.
 */
export class BaseCatalogs {
  private read: Promise<Array<CatalogEntries | undefined>> | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly base: Address | undefined,
    private readonly same: Address | undefined,
  ) {}

  private all(): Promise<Array<CatalogEntries | undefined>> {
    this.read ??= Promise.all([this.base, this.same].map((a) => CatalogEntries.read(this.objects, a)));
    return this.read;
  }

  /** The address of `id`'s model in yesterday's catalog (null: none). */
  async model(id: string): Promise<string | null> {
    return (await this.all())[0]?.get(id)?.model ?? null;
  }

  /** The model and source addresses (a source's perhaps as its prefix: {@link CatalogEntry}) `id` has in both catalogs. */
  async addresses(id: string): Promise<string[]> {
    return (await this.all()).flatMap((c) => {
      const e = c?.get(id);
      return e ? [e.model, ...e.sources] : [];
    });
  }

  /** Let the entries go (every model was read). */
  release(): void {
    this.read = undefined;
  }
}
