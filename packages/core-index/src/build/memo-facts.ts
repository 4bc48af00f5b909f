// The build memo's table facts (index/table-facts.ts): each model's part of the look-up tables, by rank, in fixed-size
// records, so the next build fills its tables for a model whose row did not change without making that row.
import type { ObjectStore } from '../index/object-store.js';
import type { SourceSet, TableFacts } from '../index/table-facts.js';
import { ChunkWriter } from './memo-records.js';

/**
 * flags (1: facts present, 2: listed), a byte unused, the source set's index (u16), files (u32), then bytes,
 * trending, downloads, likes, created, modified (f64 each).
 */
const FACTS_BYTES = 56;
const HAS = 1;
const LISTED = 2;
const NO_SET = 0xffff;

/** The source sets a memo's facts name by index, as its root keeps them. */
export type MemoSets = Array<Array<[string, string]>>;

/** Appends each model's facts in rank order; a model whose facts do not fit a record gets an empty one. */
export class FactsWriter {
  private readonly chunks: ChunkWriter;
  private readonly sets: SourceSet[] = [];
  /** a source set's index: by the array (a set read from the last memo is one shared array), else by its text */
  private readonly bySet = new Map<SourceSet, number>();
  private readonly byText = new Map<string, number>();

  constructor(objects: ObjectStore) {
    this.chunks = new ChunkWriter(objects);
  }

  add(f: TableFacts): void {
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
    this.bySet.set(sources, k);
    return k;
  }

  /** Put what is left; returns the chunks' addresses and the source sets. */
  async done(): Promise<{ facts: string[]; sets: MemoSets }> {
    return { facts: await this.chunks.done(), sets: this.sets.map((s) => s.map(([name, type]) => [name, type])) };
  }
}

/** A memo's facts read back. */
export class FactsReader {
  private readonly sets: SourceSet[];
  private readonly per: number;

  constructor(
    private readonly chunks: readonly Uint8Array[],
    sets: unknown,
  ) {
    const valid =
      Array.isArray(sets) &&
      sets.every((s) => Array.isArray(s) && s.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string')));
    // a set read once is one array, shared by every model that names it
    this.sets = valid ? (sets as SourceSet[]) : [];
    this.per = valid ? (chunks[0]?.length ?? 0) / FACTS_BYTES : 0;
  }

  /** The facts of the memo build's model of this rank, when it kept them. */
  at(rank: number): TableFacts | undefined {
    const buf = this.per ? this.chunks[Math.floor(rank / this.per)] : undefined;
    const at = (rank % this.per) * FACTS_BYTES;
    if (!buf || at + FACTS_BYTES > buf.length || !((buf[at] as number) & HAS)) return undefined;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const sources = this.sets[view.getUint16(at + 2)];
    if (!sources) return undefined;
    return {
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
}
