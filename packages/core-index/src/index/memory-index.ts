import type { Address } from './blake3.js';
import type { PackedIndex } from './load-pack.js';
import { ociName } from './model-id.js';
import type { ObjectStore } from './object-store.js';
import type { FileRecord, SourceObject } from './schemas.js';
import { searchIndexOf } from './search.js';
import type { IndexedModel, IndexStore, IndexTotals, ModelQuery, SearchPage } from './store-types.js';

/** The whole-index store as tests and small-index tools see it: the look-ups, and every model in browse order. */
export interface WholeIndexStore extends IndexStore {
  /** every model in browse order (the whole-index store only: for tests, the pack writer and the reference scan) */
  models(): readonly IndexedModel[];
}

/** Models in {@link MemoryIndex.head}. */
const HEAD = 256;

/**
 * The whole-index store: every model in memory, in browse order, with its look-up maps (design 11.1: one
 * implementation of {@link IndexStore}, for small indexes and tests). Every look-up answers without a read.
 */
export class MemoryIndex implements WholeIndexStore {
  private readonly byId = new Map<string, IndexedModel>();
  private shas: Map<string, number[]> | undefined;
  private readonly bySha = new Map<string, { model: IndexedModel; file: FileRecord }[]>();
  private kinds: Array<readonly [string, SourceObject['type']]> | undefined;
  private aliases: Map<string, IndexedModel> | undefined;
  private lowerNames: string[] | undefined;
  private readonly memos = new Map<string, unknown>();
  readonly totals: IndexTotals;

  /** `packed`: the load pack the models came from (its totals, source kinds and digest look-up); else from the models */
  constructor(
    readonly catalogAddress: Address,
    readonly snapshot: string,
    private readonly list: IndexedModel[],
    private readonly objects: ObjectStore,
    private readonly packed?: PackedIndex,
  ) {
    for (const m of list) this.byId.set(m.id.toLowerCase(), m);
    let files = 0;
    let bytes = 0;
    if (packed) {
      this.kinds = packed.head.kinds;
      files = packed.head.files;
      bytes = packed.head.bytes;
    } else
      for (const m of list)
        for (const f of m.files) {
          files++;
          bytes += f.size;
        }
    const totals = { models: list.length, files, bytes, listed: 0, holders: {} as Record<string, number> };
    // Listed count and holders are counted on first use (a pack start parses no row up front).
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      for (const m of list) {
        if (m.row.svc.listed !== false) totals.listed++;
        for (const s of new Set(m.sources.map((x) => x.source))) totals.holders[s] = (totals.holders[s] ?? 0) + 1;
      }
    };
    this.totals = {
      models: totals.models,
      files: totals.files,
      bytes: totals.bytes,
      get listed() {
        count();
        return totals.listed;
      },
      get holders() {
        count();
        return totals.holders;
      },
    };
  }

  models(): readonly IndexedModel[] {
    return this.list;
  }

  head(): readonly IndexedModel[] {
    return this.list.length <= HEAD ? this.list : this.list.slice(0, HEAD);
  }

  warm(id: string): IndexedModel | undefined {
    return this.byId.get(id.toLowerCase());
  }

  async model(id: string): Promise<IndexedModel | undefined> {
    return this.byId.get(id.toLowerCase());
  }

  async dashAlias(id: string): Promise<IndexedModel | undefined> {
    this.aliases ??= dashAliasesOf(this.list, (alias) => this.byId.has(alias));
    return this.aliases.get(id.toLowerCase());
  }

  async search(q: ModelQuery, offset: number, limit: number): Promise<SearchPage> {
    const prepared = searchIndexOf(this);
    return { ...prepared.page(q, offset, limit), total: prepared.count(q) };
  }

  async names(last: string | undefined, n: number): Promise<{ names: string[]; more: boolean }> {
    this.lowerNames ??= [...new Set(this.list.map((m) => m.id.toLowerCase()))].sort();
    const all = this.lowerNames;
    let from = 0;
    if (last !== undefined) {
      // the first name after `last` (binary search)
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((all[mid] as string) <= last) lo = mid + 1;
        else hi = mid;
      }
      from = lo;
    }
    return { names: all.slice(from, from + n), more: from + n < all.length };
  }

  sourceKinds(): ReadonlyArray<readonly [string, SourceObject['type']]> {
    if (!this.kinds) {
      const kinds = new Map<string, SourceObject['type']>();
      for (const m of this.list) for (const s of m.sources) if (!kinds.has(s.source)) kinds.set(s.source, s.type);
      this.kinds = [...kinds];
    }
    return this.kinds;
  }

  /** Every (model, file) with this digest, in browse order and each model's path order (the look-up built on first use). */
  async filesBySha256(sha256: string): Promise<ReadonlyArray<{ model: IndexedModel; file: FileRecord }>> {
    const kept = this.bySha.get(sha256);
    if (kept) return kept;
    this.shas ??= this.packed ? this.packed.shaIndex() : shaIndexOfModels(this.list);
    const found: { model: IndexedModel; file: FileRecord }[] = [];
    for (const i of this.shas.get(sha256) ?? []) {
      const model = this.list[i] as IndexedModel;
      for (const file of model.files) if (file.sha256 === sha256) found.push({ model, file });
    }
    // Kept per digest asked for (a bounded number: only digests the index holds are kept).
    if (found.length > 0) this.bySha.set(sha256, found);
    return found;
  }

  async object(address: Address): Promise<Uint8Array | undefined> {
    return (await this.objects.get(address))?.bytes;
  }

  memo<T>(key: string, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const v = build();
    this.memos.set(key, v);
    return v;
  }
}

/**
 * Dash aliases: Ollama cannot pull a namespace that contains `.` (protocols.md 4.1), so `my.org/model` is also
 * reachable as `my-org/model`. A real repository of that name always wins, and of two dotted owners that give the
 * same alias the first in browse order keeps it. Keys are lower-case.
 */
export function dashAliasesOf<M extends { id: string }>(models: Iterable<M>, isId: (lower: string) => boolean): Map<string, M> {
  const aliases = new Map<string, M>();
  for (const m of models) {
    const slash = m.id.indexOf('/');
    const owner = m.id.slice(0, slash);
    if (!owner.includes('.')) continue;
    const alias = ociName(owner, m.id.slice(slash + 1));
    if (isId(alias) || aliases.has(alias)) continue;
    aliases.set(alias, m);
  }
  return aliases;
}

/** SHA-256 → positions of the models holding a file with it. */
function shaIndexOfModels(models: readonly IndexedModel[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  models.forEach((m, i) => {
    for (const f of m.files) {
      const at = index.get(f.sha256);
      if (!at) index.set(f.sha256, [i]);
      else if (at[at.length - 1] !== i) at.push(i);
    }
  });
  return index;
}
