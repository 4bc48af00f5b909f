// A model the caller says did not change since the last build, taken from that build's memo without its input.
import type { Address } from '../index/blake3.js';
import type { RowSource, RowText } from '../index/catalog-shards.js';
import type { PagedEntry } from '../index/page-layout.js';
import type { FileRecord, ModelObject, ModelRow, SourceObject } from '../index/schemas.js';
import type { BuiltObjectKind } from './load-pack-writer.js';
import type { MemoModel } from './memo-records.js';
import { type BuildModelInput, filesByPath, modelObjectOf, modelRow, sourceObjectsOf, withRow } from './model-row.js';
import type { Kept } from './reuse-store.js';

/**
 * A model of a build's input that did not change since the build whose input `BuildInput.since` stamps: a change
 * feed knows which did (`hub index build --from-dir --changed`). When the last build's memo is of that input and
 * holds the model, the build takes its objects, its row's size and catalog place and its models page entry from the
 * memo, and calls `input` only when something of the model must be made again: a models page or catalog shard
 * composed around a changed neighbour, a look-up table filled, an object the store lost, a host's `onObject`. When
 * the memo cannot serve (none, of another input, or without the model), `input` is built as any model is.
 */
export interface UnchangedModelInput {
  id: string;
  /** the model's whole input, as the build `since` names had it */
  input: () => BuildModelInput;
}

export function isUnchanged(m: BuildModelInput | UnchangedModelInput): m is UnchangedModelInput {
  return typeof (m as Partial<UnchangedModelInput>).input === 'function';
}

/** What the builder makes of one model: its catalog row text, its models page entry, its totals, its objects' writes. */
export interface MadeModel {
  text: RowText;
  page: PagedEntry;
  files: number;
  bytes: number;
  written: Promise<unknown>;
  kept: Kept[];
}

type PagedSource = { address: string; object: SourceObject };
type Whole = MemoModel & Required<Pick<MemoModel, 'full' | 'rowBytes' | 'rank' | 'files' | 'bytes'>>;

/** Whether a memo record says all an unchanged model needs (a record of an older memo may not). */
export function takesUnchanged(before: MemoModel | undefined): before is Whole {
  return (
    before !== undefined &&
    before.full !== undefined &&
    before.rowBytes !== undefined &&
    before.rank !== undefined &&
    before.files !== undefined &&
    before.bytes !== undefined
  );
}

/**
 * The memo's record `before`, taken for `u` at `rank`: the same objects at the same addresses and the same row (its
 * size and its place in the last catalog), its input made from `u.input` when first needed. Returns what the builder
 * makes of a model and the record for the new memo (`base`: what this build's base names for it).
 */
export function unchangedModel(
  u: UnchangedModelInput,
  before: Whole,
  at: {
    rank: number;
    base: 0 | 1 | 2;
    place: RowSource | undefined;
    display: (source: string) => string;
    onObject?: (kind: BuiltObjectKind, address: Address, value: unknown) => void;
  },
): { made: MadeModel; record: MemoModel } {
  const { revision } = before;
  const address = `blake3:${before.model}` as Address;
  const sourceAddresses = before.sources.map((s) => `blake3:${s}` as Address);
  // Each getter is made by a function of its own, so what a held one keeps alive is what it is made from: a catalog
  // shard holds its rows' getters until it is cut, and a row's must not keep the model's objects too.
  const given = new GivenInput(u);
  const object = madeOnce(() =>
    modelObjectOf(given.input(), given.files(), revision, before.prev ? (`blake3:${before.prev}` as Address) : null),
  );
  const sources = madeOnce(() => sourceObjectsOf(given.input(), revision));
  const row = rowOf(given, revision, address, at.display);
  const kept: Kept[] = [
    { id: u.id, kind: 'model-hub.model', value: object, address },
    ...sourceAddresses.map((a, k) => ({ id: u.id, kind: 'model-hub.source' as const, value: () => sources()[k], address: a })),
  ];
  if (at.onObject) for (const k of kept) at.onObject(k.kind, k.address, k.value());
  const text: RowText = withRow(
    {
      id: u.id,
      entry: { model: address, sources: sourceAddresses },
      json: undefined,
      member: undefined,
      bytes: before.rowBytes,
      key: before.full,
      src: at.place,
    },
    row,
  );
  // each source's address is known; its object is made when read (a models page's key reads the addresses alone)
  const paged = sourceAddresses.map(
    (a, k) => Object.defineProperty({ address: a as string }, 'object', { get: () => sources()[k], enumerable: true }) as PagedSource,
  );
  const page = lazyEntry(u.id, address, object, paged, row);
  return {
    made: { text, page, files: before.files, bytes: before.bytes, written: Promise.resolve(), kept },
    record: { ...before, base: at.base, rank: at.rank },
  };
}

/** An unchanged model's input and its files in path order, made once when first asked. */
class GivenInput {
  private m: BuildModelInput | undefined;
  private sorted: FileRecord[] | undefined;
  constructor(private readonly u: UnchangedModelInput) {}
  input(): BuildModelInput {
    if (this.m) return this.m;
    const m = this.u.input();
    if (m.id !== this.u.id) throw new Error(`build: the input of unchanged model ${this.u.id} is of ${m.id}`);
    this.m = m;
    return m;
  }
  files(): FileRecord[] {
    this.sorted ??= filesByPath(this.input().files);
    return this.sorted;
  }
}

function madeOnce<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

/** The row getter: keeps the input and what the row is made from, not the model's objects. */
function rowOf(given: GivenInput, revision: string, address: Address, display: (source: string) => string): () => ModelRow {
  return madeOnce(() => modelRow(given.input(), given.files(), revision, address, display));
}

/** A models page entry whose object, sources and row are made when first read (enumerable getters: a serializer sees members). */
function lazyEntry(id: string, address: string, object: () => ModelObject, sources: PagedSource[], row: () => ModelRow): PagedEntry {
  return Object.defineProperties(
    { id, address, sources },
    {
      object: { get: object, enumerable: true },
      row: { get: row, enumerable: true },
    },
  ) as PagedEntry;
}
