// The build memo's table facts (index/table-facts.ts): each model's part of the look-up tables, by rank, in fixed-size
// records, so the next build fills its tables for a model whose row did not change without making that row.
import { type Address, addressOf } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import { type SectionFacts, type SourceSet, sectionFactsAt, sectionLength, type TableFacts } from '../index/table-facts.js';
import { checkedNow, FixedRecords } from './memo-chunks.js';
import { ChunkWriter } from './memo-records.js';

/**
 * flags (1: facts present, 2: listed), a byte unused, the source set's index (u16), files (u32), then bytes,
 * trending, downloads, likes, created, modified (f64 each).
 */
const FACTS_BYTES = 56;
const HAS = 1;
const LISTED = 2;
const NO_SET = 0xffff;
/** A model's section facts: the number of the data chunk they are in and where (8 bytes a rank), or none. */
const SECTION_INDEX_BYTES = 8;
const NO_SECTION = 0xffffffff;

/** The source sets a memo's facts name by index, as its root keeps them. */
export type MemoSets = Array<Array<[string, string]>>;

/** Appends each model's facts in rank order; a model whose facts do not fit a record gets an empty one. */
export class FactsWriter {
  private readonly chunks: ChunkWriter;
  private readonly sets: SourceSet[] = [];
  /**
   * a source set's index: by the array for a set read from the last memo (one frozen array, shared by every model that
   * names it), else by its text (a model's own array is not kept: a million of them were 140 MB at 1,000,000 models)
   */
  private readonly bySet = new Map<SourceSet, number>();
  private readonly byText = new Map<string, number>();
  private readonly sectionIndex: ChunkWriter;
  private readonly sectionData: ChunkWriter;

  constructor(objects: ObjectStore) {
    this.chunks = new ChunkWriter(objects);
    this.sectionIndex = new ChunkWriter(objects);
    this.sectionData = new ChunkWriter(objects);
  }

  add(f: TableFacts): void {
    this.addSections(f.sectionBytes());
    this.addTable(f);
  }

  /** The model's section facts (table-facts.ts `sectionBytes`), copied into the data chunks and indexed by rank. */
  private addSections(raw: Uint8Array | undefined): void {
    const [ib, ia] = this.sectionIndex.room(SECTION_INDEX_BYTES);
    const index = new DataView(ib.buffer, ib.byteOffset);
    if (raw) {
      const [db, da] = this.sectionData.room(raw.length);
      db.set(raw, da);
      // the chunk being filled is put as the next one
      index.setUint32(ia, this.sectionData.addresses.length);
      index.setUint32(ia + 4, da);
      this.sectionData.end();
    } else {
      index.setUint32(ia, NO_SECTION);
      index.setUint32(ia + 4, 0);
    }
    this.sectionIndex.end();
  }

  private addTable(f: TableFacts): void {
    const [buf, at] = this.chunks.room(FACTS_BYTES);
    const view = new DataView(buf.buffer, buf.byteOffset);
    const set = this.setOf(f.sources);
    const fits = set !== NO_SET && typeof f.created === 'number' && typeof f.modified === 'number' && f.files <= 0xffffffff;
    if (!fits) {
      buf.fill(0, at, at + FACTS_BYTES);
      this.chunks.end();
      return;
    }
    buf[at] = HAS | (f.listed ? LISTED : 0);
    buf[at + 1] = 0;
    view.setUint16(at + 2, set);
    view.setUint32(at + 4, f.files);
    view.setFloat64(at + 8, f.bytes);
    view.setFloat64(at + 16, f.trending);
    view.setFloat64(at + 24, f.downloads);
    view.setFloat64(at + 32, f.likes);
    view.setFloat64(at + 40, f.created as number);
    view.setFloat64(at + 48, f.modified as number);
    this.chunks.end();
  }

  private setOf(sources: SourceSet): number {
    const known = this.bySet.get(sources);
    if (known !== undefined) return known;
    const text = JSON.stringify(sources);
    let k = this.byText.get(text);
    if (k === undefined) {
      if (this.sets.length >= NO_SET) return NO_SET;
      k = this.sets.length;
      this.sets.push(sources);
      this.byText.set(text, k);
    }
    if (Object.isFrozen(sources)) this.bySet.set(sources, k);
    return k;
  }

  /** Put what is left; returns the chunks' addresses and the source sets. */
  async done(): Promise<{ facts: string[]; sets: MemoSets; sectionIndex: string[]; sectionData: string[] }> {
    return {
      facts: await this.chunks.done(),
      sets: this.sets.map((s) => s.map(([name, type]) => [name, type])),
      sectionIndex: await this.sectionIndex.done(),
      sectionData: await this.sectionData.done(),
    };
  }
}

/**
 * A memo's facts read back, by rank (memo-chunks.ts: on a local disk one record at a time). The section facts' data
 * chunks (the largest part: a model's tags and digests) are read when first asked, a few at a time (a build asks in
 * about rank order), each checked against its address.
 */
export class FactsReader {
  private readonly sets: SourceSet[];
  private readonly loaded = new Map<number, Uint8Array | undefined>();

  private constructor(
    private readonly table: FixedRecords,
    sets: unknown,
    private readonly sectionIndex: FixedRecords,
    private readonly sectionData: readonly string[],
    /** a section data chunk by its address, checked (undefined: missing or damaged) */
    private readonly readChunk: (address: string) => Uint8Array | undefined,
  ) {
    const valid =
      Array.isArray(sets) &&
      sets.every((s) => Array.isArray(s) && s.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string')));
    // a set read once is one frozen array, shared by every model that names it (and known by it to FactsWriter)
    this.sets = valid
      ? ((sets as Array<Array<[string, string]>>).map((set) => Object.freeze(set.map((p) => Object.freeze(p)))) as SourceSet[])
      : [];
  }

  /** The facts a memo's root names (none when it names none), their chunks read and checked. */
  static async open(
    objects: ObjectStore,
    root: { facts?: string[]; sets?: unknown; sectionIndex?: string[]; sectionData?: string[] },
  ): Promise<FactsReader> {
    const table = await FixedRecords.open(objects, root.facts ?? [], FACTS_BYTES);
    const index = await FixedRecords.open(objects, root.sectionIndex ?? [], SECTION_INDEX_BYTES);
    const data = root.sectionData ?? [];
    // the data chunks are read when first asked, at once from a store that can (the filesystem's), else all now
    const checked = (a: string, b: Uint8Array | undefined) => (b && addressOf(b) === a ? b : undefined);
    const all = objects.readBytes
      ? undefined
      : new Map(await Promise.all(data.map(async (a) => [a, checked(a, (await objects.get(a as Address))?.bytes)] as const)));
    const read = (a: string) => (all ? all.get(a) : checkedNow(objects, a));
    return new FactsReader(table, root.sets, index, data, read);
  }

  /** The facts of the memo build's model of this rank, when it kept them. */
  at(rank: number): TableFacts | undefined {
    const got = this.table.at(rank);
    if (!got) return undefined;
    const [buf, at] = got;
    if (!((buf[at] as number) & HAS)) return undefined;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const sources = this.sets[view.getUint16(at + 2)];
    if (!sources) return undefined;
    return {
      sections: () => this.sectionsAt(rank),
      sectionBytes: () => {
        const s = this.section(rank);
        if (!s) return undefined;
        const [data, start] = s;
        return data.subarray(start, start + sectionLength(data, start));
      },
      files: view.getUint32(at + 4),
      bytes: view.getFloat64(at + 8),
      listed: ((buf[at] as number) & LISTED) !== 0,
      sources,
      trending: view.getFloat64(at + 16),
      downloads: view.getFloat64(at + 24),
      likes: view.getFloat64(at + 32),
      created: view.getFloat64(at + 40),
      modified: view.getFloat64(at + 48),
    };
  }

  /** The section facts of the model of this rank, when they were kept (whether its table facts were or not). */
  sectionsAt(rank: number): SectionFacts | undefined {
    const s = this.section(rank);
    return s && sectionFactsAt(s[0], s[1]);
  }

  /** The data chunk holding the section facts of the model of this rank, and where they start in it. */
  private section(rank: number): [Uint8Array, number] | undefined {
    const got = this.sectionIndex.at(rank);
    if (!got) return undefined;
    const [index, at] = got;
    const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
    const c = view.getUint32(at);
    if (c === NO_SECTION) return undefined;
    if (!this.loaded.has(c)) {
      const address = this.sectionData[c];
      if (this.loaded.size >= 2) this.loaded.delete(this.loaded.keys().next().value as number);
      this.loaded.set(c, address === undefined ? undefined : this.readChunk(address));
    }
    const data = this.loaded.get(c);
    const start = view.getUint32(at + 4);
    return data && start + 3 <= data.length && start + sectionLength(data, start) <= data.length ? [data, start] : undefined;
  }
}
