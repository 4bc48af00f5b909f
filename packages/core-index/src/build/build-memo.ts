import { type Address, addressOf } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import type { RowPlace, RowSource } from '../index/catalog-shards.js';
import { firstAtLeast } from '../index/models-list.js';
import type { ModelsPageRecord, SectionBase } from '../index/models-pages.js';
import type { ObjectStore } from '../index/object-store.js';
import { type PagesRoot, type SectionSizes, sectionSizesOf } from '../index/page-layout.js';
import { readPageOrNone } from '../index/read-page.js';
import type { TableFacts } from '../index/table-facts.js';
import { checkedChunk, FixedRecords, KeyedRecords, UNREADABLE } from './memo-chunks.js';
import { FactsReader, FactsWriter } from './memo-facts.js';
import {
  bare,
  ChunkWriter,
  hexAt,
  idHash,
  MEMO_CHUNK_KIND,
  type MemoModel,
  type MemoRoot,
  modelIdAt,
  putHex,
  readModel,
  writeModel,
} from './memo-records.js';

export { UNREADABLE } from './memo-chunks.js';
export { inputKeys, type MemoModel } from './memo-records.js';
export { MEMO_CHUNK_KIND };

/**
 * What a build remembers for the next one (docs/decisions/scale-and-speed.md, "A day costs what changed"): for each
 * model, a key of the input that made its objects and the addresses they got; for each models page, a key of what it
 * holds and its address and entries. The next build looks a model up by id and reuses its addresses when the key is
 * the same (no canonical JSON, no BLAKE3), and a models page by its key. A memo is a cache: objects of the store
 * (chunks checked against their addresses when read), named by the ref {@link MEMO_REF}; one that is missing,
 * damaged, or made on another base is not used, and the build makes every model's objects again (the base day's pages
 * still spare it the terms and digests: index/pages-delta.ts). Nothing in it is served.
 */
export const MEMO_REF = 'build-memo';
/**
 * The memo root's kind. `.v2`: a model's record may hold its full key and row bytes (flag 8), which a reader of the
 * first form would misread; it does not read a root of this kind (another kind: not its memo). `.v3`: also its file
 * count and bytes (flag 16), for a model the next build takes unchanged without its input.
 */
export const MEMO_KIND = 'model-hub.build-memo.v3';
/** A look-up page's record: 16 bytes of key, 32 of address. */
const LOOK_BYTES = 48;
/** A row's place: its part's index (or {@link NO_PLACE}), and four 32-bit offsets and lengths. */
const ROW_BYTES = 20;
const NO_PLACE = 0xffffffff;

/** A models page as written (index-pages.ts). */
export type MemoPage = ModelsPageRecord;

const decoder = new TextDecoder();
/** A key's hash in the memo's tables: its first four bytes (keys are 128 bits of BLAKE3), from bytes or from hex. */
const keyHashAt = (buf: Uint8Array, at: number) =>
  (((buf[at] as number) << 24) | ((buf[at + 1] as number) << 16) | ((buf[at + 2] as number) << 8) | (buf[at + 3] as number)) >>> 0;
const keyHashOf = (hex: string) => Number.parseInt(hex.slice(0, 8), 16) >>> 0;

/** Writes a build's memo as the build goes ({@link model}, {@link page}), then its root ({@link finish}). */
export class BuildMemoWriter {
  private readonly models: ChunkWriter;
  private readonly pages: ChunkWriter;
  private readonly looks: ChunkWriter;
  private readonly rows: ChunkWriter;
  private readonly positionsW: ChunkWriter;
  private sizes: SectionSizes | undefined;
  private readonly factsW: FactsWriter;

  constructor(private readonly objects: ObjectStore) {
    this.models = new ChunkWriter(objects);
    this.pages = new ChunkWriter(objects);
    this.looks = new ChunkWriter(objects);
    this.rows = new ChunkWriter(objects);
    this.positionsW = new ChunkWriter(objects);
    this.factsW = new FactsWriter(objects);
  }

  /** A look-up page by its key (page-tables.ts `PageKey`); its address in 64 hex digits. */
  look(key: string, address: string): void {
    const [buf, at] = this.looks.room(48);
    putHex(buf, at, key, 16);
    putHex(buf, at + 16, address, 32);
    this.looks.end();
  }

  /** What the day's terms and digest map came to (day-sections.ts), for the next build's patch of them. */
  sectionSizes(sizes: SectionSizes): void {
    this.sizes = sizes;
  }

  /** The next row's place in the catalog (in rank order): its part's index, and where in it (unknown: undefined). */
  place(part: number, p: RowPlace | undefined): void {
    const [buf, at] = this.rows.room(ROW_BYTES);
    const view = new DataView(buf.buffer, buf.byteOffset);
    view.setUint32(at, p ? part : NO_PLACE);
    view.setUint32(at + 4, p?.rowAt ?? 0);
    view.setUint32(at + 8, p?.rowLen ?? 0);
    view.setUint32(at + 12, p?.memAt ?? 0);
    view.setUint32(at + 16, p?.memLen ?? 0);
    this.rows.end();
  }

  /** Every model's position in the day's pages, by rank (positions.ts). */
  positions(positions: Uint32Array): void {
    // in blocks of whole records (a chunk ends after a block)
    for (let from = 0; from < positions.length; from += 4096) {
      const block = positions.subarray(from, from + 4096);
      const [buf, at] = this.positionsW.room(block.length * 4);
      const view = new DataView(buf.buffer, buf.byteOffset);
      for (let k = 0; k < block.length; k++) view.setUint32(at + k * 4, block[k] as number);
      this.positionsW.end();
    }
  }

  model(id: string, m: MemoModel): void {
    writeModel(this.models, id, m);
  }

  /** The next model's part of the look-up tables (in rank order). */
  facts(f: TableFacts): void {
    this.factsW.add(f);
  }

  page(key: string, p: MemoPage): void {
    const [buf, start] = this.pages.room(16 + 32 + 1 + p.starts.length * 40);
    const view = new DataView(buf.buffer, buf.byteOffset);
    putHex(buf, start, key, 16);
    putHex(buf, start + 16, bare(p.address), 32);
    buf[start + 48] = p.starts.length;
    let at = start + 49;
    for (let k = 0; k < p.starts.length; k++) {
      view.setUint32(at, p.starts[k] as number);
      view.setUint32(at + 4, p.lengths[k] as number);
      putHex(buf, at + 8, bare(p.hashes[k] as string), 32);
      at += 40;
    }
    this.pages.end();
  }

  private pagesRoot: { list: string; root: string } | undefined;

  /** The day's pages root, and the key of its models pages' list. */
  root(list: string, root: string): void {
    this.pagesRoot = { list, root };
  }

  /** Put what is left and the root; returns the root's address (for {@link MEMO_REF}). */
  async finish(catalog: Address, base: Address | null, format: string, parts: readonly string[], stamp?: string): Promise<Address> {
    const root: MemoRoot = {
      kind: MEMO_KIND,
      catalog,
      base,
      format,
      models: await this.models.done(),
      pages: await this.pages.done(),
      looks: await this.looks.done(),
      rows: await this.rows.done(),
      ...(this.sizes ? { sectionSizes: this.sizes } : {}),
      positions: await this.positionsW.done(),
      ...(await this.factsW.done()),
      parts: parts.map(bare),
      ...this.pagesRoot,
      ...(stamp === undefined ? {} : { stamp }),
    };
    const { meta } = await this.objects.put(canonicalBytes(root), { kind: MEMO_KIND, mediaType: 'application/json' });
    return meta.id as Address;
  }
}

/** A memo read back, for a build chaining to `base`. */
export class BuildMemo {
  private constructor(
    private readonly objects: ObjectStore,
    /** `yesterday`: the memo is of the catalog the build chains to; `same-base`: of a build that chained to it too */
    readonly mode: 'yesterday' | 'same-base',
    private readonly format: string,
    private readonly pagesRoot: { list?: string; root?: string },
    private models: KeyedRecords | undefined,
    private readonly pages: KeyedRecords,
    private readonly looks: KeyedRecords,
    private readonly rows: FixedRecords,
    private readonly parts: string[],
    /** what the memo build's terms and digest map came to, when it said */
    readonly sectionSizes: SectionSizes | undefined,
    /** the stamp of the memo build's input (`BuildInput.stamp`), if it was given one */
    readonly stamp: string | undefined,
    private readonly factsRead: FactsReader,
    /** each model's position in the memo build's pages, by its rank there (0: none) */
    private readonly positions: Uint32Array,
  ) {}

  /**
   * The memo of the last build, when it can serve a build chaining to `base`: the memo's own catalog is `base`, or
   * the memo's build chained to `base` too. Undefined when there is none, or any part of it is missing or damaged.
   * Each chunk is read and checked once here; on a local disk only an index of its records is kept (memo-chunks.ts).
   */
  static async read(objects: ObjectStore, base: Address | undefined): Promise<BuildMemo | undefined> {
    try {
      const address = (await objects.readRef(MEMO_REF))?.trim() as Address | undefined;
      if (!address) return undefined;
      const stored = await objects.get(address);
      if (!stored || addressOf(stored.bytes) !== address) return undefined;
      const root = JSON.parse(decoder.decode(stored.bytes)) as MemoRoot;
      if (root.kind !== MEMO_KIND) return undefined;
      const mode = root.catalog === (base ?? null) ? 'yesterday' : root.base === (base ?? null) ? 'same-base' : undefined;
      if (!mode) return undefined;
      const models = await KeyedRecords.open(objects, root.models, (buf, add) => {
        const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        for (let at = 0; at < buf.length; ) {
          const { id, next } = modelIdAt(buf, view, at);
          add(at, next - at, idHash(id));
          at = next;
        }
      });
      const pages = await KeyedRecords.open(objects, root.pages, (buf, add) => {
        for (let at = 0, n = 0; at < buf.length; at += n) {
          n = 49 + (buf[at + 48] as number) * 40;
          add(at, n, keyHashAt(buf, at));
        }
      });
      const looks = await KeyedRecords.open(objects, root.looks ?? [], (buf, add) => {
        for (let at = 0; at + LOOK_BYTES <= buf.length; at += LOOK_BYTES) add(at, LOOK_BYTES, keyHashAt(buf, at));
      });
      const rows = await FixedRecords.open(objects, root.rows ?? [], ROW_BYTES);
      const pagesRoot = { list: root.list, root: root.root };
      const stamp = typeof root.stamp === 'string' ? root.stamp : undefined;
      const facts = await FactsReader.open(objects, root);
      const positions = await readPositions(objects, root.positions ?? []);
      return new BuildMemo(
        objects,
        mode,
        root.format,
        pagesRoot,
        models,
        pages,
        looks,
        rows,
        root.parts ?? [],
        sectionSizesOf(root.sectionSizes),
        stamp,
        facts,
        positions,
      );
    } catch {
      return undefined;
    }
  }

  /**
   * What the memo's build made of `id`, if it had it; {@link UNREADABLE} when a record that may be its could not be
   * read (its chunk changed since the memo was opened): the memo cannot say whether its build had the model.
   */
  model(id: string): MemoModel | undefined | typeof UNREADABLE {
    if (!this.models) throw new Error('build memo: a model asked for after modelsRead()');
    return this.models.find(idHash(id), (buf, at) => readModel(buf, at, id));
  }

  /** Every model of the build has been asked for: the index of their records is let go (32 MB at 1,000,000). */
  modelsRead(): void {
    this.models = undefined;
  }

  /**
   * The memo's pages root when its build wrote its pages as they are written now (`format`) from the same models
   * pages (`list`), read and checked against its address, and every page it names directly still stored.
   */
  async root(list: string, format: string): Promise<PagesRoot | undefined> {
    const root = list === this.pagesRoot.list ? await this.lastRoot(format) : undefined;
    if (!root) return undefined;
    const named: string[] = [];
    for (const v of [root.models, root.ids, root.shas, root.terms, root.names, ...Object.values(root.orders)])
      named.push(...(v.pages ?? []), ...(v.dirs ?? []));
    for (const a of named) if (!(await this.objects.has(a as Address))) return undefined;
    return root;
  }

  /** The memo build's pages root, read and checked against its address, when its pages were written as `format` says. */
  async lastRoot(format: string): Promise<PagesRoot | undefined> {
    const address = this.pagesRoot.root as Address | undefined;
    if (!address || format !== this.format) return undefined;
    return readPageOrNone<PagesRoot>(this.objects, address);
  }

  /** The look-up page keys the memo's build recorded for these pages (addresses with `blake3:`): [key, address]. */
  looksFor(addresses: ReadonlySet<string>): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const buf of this.looks.chunks())
      for (let at = 0; at + LOOK_BYTES <= buf.length; at += LOOK_BYTES) {
        const address = hexAt(buf, at + 16, 32);
        if (addresses.has(`blake3:${address}`)) out.push([hexAt(buf, at, 16), address]);
      }
    return out;
  }

  /** Where the row of the memo build's model of this rank lies in that build's catalog, when known. */
  source(rank: number): RowSource | undefined {
    const got = this.rows.at(rank);
    if (!got) return undefined;
    const [buf, at] = got;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const part = this.parts[view.getUint32(at)];
    if (!part) return undefined;
    const [rowAt, rowLen, memAt, memLen] = [4, 8, 12, 16].map((o) => view.getUint32(at + o)) as [number, number, number, number];
    return { part: `blake3:${part}` as Address, rowAt, rowLen, memAt, memLen };
  }

  /** The position of the memo build's model of this rank in its pages (positions.ts), when it kept them. */
  position(rank: number): number | undefined {
    return this.positions[rank] || undefined;
  }

  /** Whether the memo kept its build's positions (a memo written before them did not). */
  get hasPositions(): boolean {
    return this.positions.length > 0;
  }

  /**
   * What a patch of the memo build's terms and digest map needs (index/day-sections.ts), when the memo is of the build
   * that wrote the base day and kept its positions and what those maps came to; `root` reads its pages root.
   */
  sectionBase(root: () => Promise<PagesRoot | undefined>): SectionBase | undefined {
    const { positions, sectionSizes: sizes } = this;
    if (this.mode !== 'yesterday' || positions.length === 0 || !sizes) return undefined;
    return {
      sizes,
      count: positions.length,
      positionOf: (rank) => positions[rank] as number,
      rankOf: (position) => {
        // positions ascend with the ranks
        const rank = firstAtLeast(positions, position);
        return positions[rank] === position ? rank : undefined;
      },
      sectionsAt: (rank) => this.factsRead.sectionsAt(rank),
      root,
    };
  }

  /** The look-up tables' facts of the memo build's model of this rank, when it kept them (memo-facts.ts). */
  facts(rank: number): TableFacts | undefined {
    return this.factsRead.at(rank);
  }

  /** The address (64 hex digits) of the look-up page the memo's build wrote with this key, written as `format` says. */
  look(key: string, format: string): string | undefined {
    if (format !== this.format) return undefined;
    const found = this.looks.find(keyHashOf(key), (buf, at) => (hexAt(buf, at, 16) === key ? hexAt(buf, at + 16, 32) : undefined));
    return found === UNREADABLE ? undefined : found;
  }

  /** A models page the memo's build wrote with this key, if it was written the way `format` says pages are now. */
  page(key: string, format: string): MemoPage | undefined {
    if (format !== this.format) return undefined;
    const found = this.pages.find(keyHashOf(key), (buf, at) => (hexAt(buf, at, 16) === key ? pageAt(buf, at) : undefined));
    return found === UNREADABLE ? undefined : found;
  }
}

/**
 * The memo's positions (4 bytes a rank), read whole when the memo is opened, each chunk checked against its address:
 * they are not a cache but what the next day's pages name the models by, so a range read that fails later does not
 * give a model another position.
 */
async function readPositions(objects: ObjectStore, addresses: readonly string[]): Promise<Uint32Array> {
  const chunks: Uint8Array[] = [];
  for (const a of addresses) chunks.push(await checkedChunk(objects, a));
  const out = new Uint32Array(chunks.reduce((n, c) => n + Math.floor(c.length / 4), 0));
  let at = 0;
  for (const c of chunks) {
    const view = new DataView(c.buffer, c.byteOffset, c.byteLength);
    for (let k = 0; k + 4 <= c.length; k += 4) out[at++] = view.getUint32(k);
  }
  return out;
}

/** The models page record at `at`. */
function pageAt(buf: Uint8Array, at: number): MemoPage {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const p: MemoPage = { address: hexAt(buf, at + 16, 32), starts: [], lengths: [], hashes: [] };
  for (let k = 0, o = at + 49; k < (buf[at + 48] as number); k++, o += 40) {
    p.starts.push(view.getUint32(o));
    p.lengths.push(view.getUint32(o + 4));
    p.hashes.push(hexAt(buf, o + 8, 32));
  }
  return p;
}
