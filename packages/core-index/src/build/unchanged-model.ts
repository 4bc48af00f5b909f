// A model the caller says did not change since the last build, taken from that build's memo without its input.
import type { Address } from '../index/blake3.js';
import type { RowSource, RowText } from '../index/catalog-shards.js';
import type { PagedEntry } from '../index/page-layout.js';
import type { FileRecord, ModelObject, ModelRow, SourceObject } from '../index/schemas.js';
import type { TableFacts } from '../index/table-facts.js';
import type { BuiltObjectKind } from './load-pack-writer.js';
import type { MemoModel } from './memo-records.js';
import { type BuildModelInput, filesByPath, modelObjectOf, modelRow, sourceObjectsOf } from './model-row.js';
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

/** An unchanged model's input, checked to be of that model. */
export function inputOf(u: UnchangedModelInput): BuildModelInput {
  const m = u.input();
  if (m.id !== u.id) throw new Error(`build: the input of unchanged model ${u.id} is of ${m.id}`);
  return m;
}

/** What the builder makes of one model: its catalog row text, its models page entry, its totals, its objects' writes. */
export interface MadeModel {
  text: RowText;
  page: PagedEntry;
  files: number;
  bytes: number;
  written: Promise<unknown>;
  kept: Kept[];
  /** its part of the look-up tables, when the last build's memo kept it (else made from `page`) */
  facts?: TableFacts | undefined;
  /** its position in the last build's pages (positions.ts), when the memo kept it */
  was?: number | undefined;
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
  const address = `blake3:${before.model}` as Address;
  const sourceAddresses = before.sources.map((s) => `blake3:${s}` as Address);
  const given = new GivenInput(u, before.revision, address, at.display);
  const page = new UnchangedEntry(given, before.prev ? (`blake3:${before.prev}` as Address) : null, sourceAddresses);
  const kept: Kept[] = [
    { id: u.id, kind: 'model-hub.model', value: () => page.object, address },
    ...sourceAddresses.map((a, k) => ({ id: u.id, kind: 'model-hub.source' as const, value: () => page.sourceObject(k), address: a })),
  ];
  if (at.onObject) for (const k of kept) at.onObject(k.kind, k.address, k.value());
  const text = new UnchangedRowText(given, { model: address, sources: sourceAddresses }, before.rowBytes, before.full, at.place);
  return {
    made: { text, page, files: before.files, bytes: before.bytes, written: Promise.resolve(), kept },
    record: { ...before, base: at.base, rank: at.rank },
  };
}

/**
 * An unchanged model's input, its files in path order and its row, each made once when first asked. A catalog shard
 * holds its rows until it is cut, so this is all a held row keeps (not the model's objects, which its entry makes).
 */
class GivenInput {
  private m: BuildModelInput | undefined;
  private sorted: FileRecord[] | undefined;
  private made: ModelRow | undefined;
  constructor(
    private readonly u: UnchangedModelInput,
    readonly revision: string,
    readonly address: Address,
    private readonly display: (source: string) => string,
  ) {}
  get id(): string {
    return this.u.id;
  }
  input(): BuildModelInput {
    this.m ??= inputOf(this.u);
    return this.m;
  }
  files(): FileRecord[] {
    this.sorted ??= filesByPath(this.input().files);
    return this.sorted;
  }
  row(): ModelRow {
    this.made ??= modelRow(this.input(), this.files(), this.revision, this.address, this.display);
    return this.made;
  }
}

/** The catalog row text of an unchanged model: its size, key and place known, its row made when it is serialized. */
class UnchangedRowText implements RowText {
  readonly json = undefined;
  readonly member = undefined;
  constructor(
    private readonly given: GivenInput,
    readonly entry: RowText['entry'],
    readonly bytes: number,
    readonly key: string,
    readonly src: RowSource | undefined,
  ) {}
  get id(): string {
    return this.given.id;
  }
  get row(): ModelRow {
    return this.given.row();
  }
}

/**
 * The models page entry of an unchanged model: its addresses known, its model object, source objects and row made
 * when first read (getters; `toJSON` gives a serializer the plain entry). A models page's key reads the addresses alone.
 */
class UnchangedEntry implements PagedEntry {
  readonly sources: PagedSource[];
  private obj: ModelObject | undefined;
  private srcs: SourceObject[] | undefined;
  constructor(
    private readonly given: GivenInput,
    private readonly prev: Address | null,
    sourceAddresses: readonly Address[],
  ) {
    this.sources = sourceAddresses.map((a, k) => new UnchangedSource(this, a, k));
  }
  get id(): string {
    return this.given.id;
  }
  get address(): string {
    return this.given.address;
  }
  get object(): ModelObject {
    this.obj ??= modelObjectOf(this.given.input(), this.given.files(), this.given.revision, this.prev);
    return this.obj;
  }
  sourceObject(k: number): SourceObject {
    this.srcs ??= sourceObjectsOf(this.given.input(), this.given.revision);
    return this.srcs[k] as SourceObject;
  }
  get row(): ModelRow {
    return this.given.row();
  }
  toJSON(): PagedEntry {
    return { id: this.id, address: this.address, object: this.object, sources: this.sources, row: this.row };
  }
}

/** A source of an unchanged model's entry: its address, and its object made when read. */
class UnchangedSource {
  constructor(
    private readonly of: UnchangedEntry,
    readonly address: string,
    private readonly k: number,
  ) {}
  get object(): SourceObject {
    return this.of.sourceObject(this.k);
  }
  toJSON(): { address: string; object: SourceObject } {
    return { address: this.address, object: this.object };
  }
}
