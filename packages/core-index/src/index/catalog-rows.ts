// A catalog's rows as texts: each row serialized once (or, when the last build wrote it from the same input, known by
// its size until its shard must be composed), and a shard's bytes composed from them (catalog-shards.ts cuts them).
import type { Address } from './blake3.js';
import { canonicalJson } from './canonical-json.js';
import { PageKey } from './page-tables.js';
import type { CatalogObject } from './schemas.js';

export const CATALOG_SHARD_KIND = 'model-hub.catalog-shard';

export type Row = CatalogObject['rows'][number];
export type Entry = CatalogObject['objects'][string];

// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII character, controls too
const ASCII = /^[\u0000-\u007f]*$/;

/** The length in UTF-8 of a string (what `canonicalBytes(...).length` is, without encoding it). */
export function utf8Length(s: string): number {
  if (ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 2 code units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * One row serialized once (canonical JSON): the row, and its `"id":entry` member of the shard's `objects`. Its size
 * decides the cuts and its text is the shard's, so a streamed shard is composed from these, not serialized again. A
 * row the last build wrote from the same input (`key`, {@link CatalogWriter.add}) comes with its size alone, and is
 * serialized only if its shard is not the last build's.
 */
export interface RowText {
  /** the row's id (the row itself may be made only when it is serialized) */
  id: string;
  row: Row;
  entry: Entry | undefined;
  json: string | undefined;
  member: string | undefined;
  bytes: number;
  /** the key of the input the row and its entry's addresses are made from (build-memo.ts `inputKeys`' `full`) */
  key?: string;
  /** where the last build's catalog holds this row's text and member (a row of the same key and addresses) */
  src?: RowSource;
}

/** Where a row's text and its `objects` member lie in a catalog object or shard (`part`), in bytes. */
export interface RowPlace {
  rowAt: number;
  rowLen: number;
  memAt: number;
  memLen: number;
}

/** A row's place in the last build's catalog: the part's address, and where in it. */
export interface RowSource extends RowPlace {
  part: Address;
}

/** The bytes of a part of the last build's catalog, checked against its address; undefined if they cannot be had. */
export type PartReader = (part: Address) => Uint8Array | undefined;

/** The bytes one row takes in a shard: the row, the entry keyed by the id, and the separators. */
export function rowText(row: Row, entry: Entry | undefined, json = canonicalJson(row)): RowText {
  const member = entry ? `${canonicalJson(row.id)}:${canonicalJson(entry)}` : undefined;
  return { id: row.id, row, entry, json, member, bytes: utf8Length(json) + (member ? utf8Length(member) + 1 : 0) + 2 };
}

/** A row's texts, serialized now when it came with its size alone (checked to take that size). */
function texts(r: RowText): { json: string; member: string | undefined } {
  if (r.json === undefined) {
    const made = rowText(r.row, r.entry);
    if (made.bytes !== r.bytes) throw new Error(`catalog row ${r.id}: ${made.bytes} bytes, its input's last build gave ${r.bytes}`);
    r.json = made.json;
    r.member = made.member;
  }
  return r as { json: string; member: string | undefined };
}

/** Catalog shards of the last build by the key of their rows (see {@link CatalogWriter}), and this build's. */
export interface ShardReuse {
  /** the address of the shard the last build wrote with this key (checked to be stored before the catalog is) */
  shard(key: string): Address | undefined;
  record(key: string, address: Address): void;
}

const shardKey = new PageKey();

/**
 * The key of a shard: for each row, its input's key and its entry's addresses (which decide the row's text and its
 * member), in order; undefined when a row has no key or no entry.
 */
export function shardKeyOf(rows: readonly RowText[]): string | undefined {
  const k = shardKey.start('catalog-shard').u32(rows.length);
  for (const r of rows) {
    if (r.key === undefined || !r.entry) return undefined;
    k.str(r.key).str(r.entry.model).u32(r.entry.sources.length);
    for (const a of r.entry.sources) k.str(a);
  }
  return k.key();
}

const encoder = new TextEncoder();

/** The canonical bytes of a shard from its rows' texts (the same bytes as `canonicalBytes` of the shard object). */
export function shardBytes(held: readonly RowText[], read?: PartReader): { bytes: Uint8Array; placed: RowPlace[] } {
  return composeRows(`{"kind":"${CATALOG_SHARD_KIND}","objects":{`, held, '},"rows":[', ']}', read);
}

const comma = 44;

/**
 * Byte ranges copied into a composed catalog in order, a comma between two: a range taken from a part that ends one
 * byte (the comma between two rows or members there) before the next one taken from the same part is extended over
 * it, so the rows and members the last build wrote side by side are copied as one range, not one at a time.
 */
class Runs {
  private readonly from: Uint8Array[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** for each item added, its range's index and where it starts in that range */
  readonly item: Array<[number, number]> = [];

  add(bytes: Uint8Array, start: number, end: number): void {
    const last = this.from.length - 1;
    if (last >= 0 && this.from[last] === bytes && this.ends[last] === start - 1 && bytes[start - 1] === comma) {
      this.item.push([last, start - (this.starts[last] as number)]);
      this.ends[last] = end;
      return;
    }
    this.item.push([this.from.length, 0]);
    this.from.push(bytes);
    this.starts.push(start);
    this.ends.push(end);
  }

  get bytes(): number {
    let n = Math.max(0, this.from.length - 1);
    for (let k = 0; k < this.from.length; k++) n += (this.ends[k] as number) - (this.starts[k] as number);
    return n;
  }

  /** Copy every range into `out` from `at`; returns where each range landed. */
  copy(out: Uint8Array, at: number): number[] {
    const landed: number[] = [];
    for (let k = 0; k < this.from.length; k++) {
      if (k > 0) out[at++] = comma;
      landed.push(at);
      out.set((this.from[k] as Uint8Array).subarray(this.starts[k], this.ends[k]), at);
      at += (this.ends[k] as number) - (this.starts[k] as number);
    }
    return landed;
  }
}

/**
 * `prefix`, the rows' `objects` members in key order (UTF-16 code units, as RFC 8785 sorts keys) joined by commas,
 * `middle`, the rows joined by commas, `suffix`: the canonical bytes of a catalog or shard object from its rows. A row
 * with a {@link RowSource} is copied from the last build's bytes (`read`), not serialized; any other row (or one whose
 * part cannot be read, or whose place does not have its size) is serialized. Returns where each row and member lie.
 */
export function composeRows(
  prefix: string,
  held: readonly RowText[],
  middle: string,
  suffix: string,
  read?: PartReader,
): { bytes: Uint8Array; placed: RowPlace[] } {
  const rows = new Runs();
  const rowLengths: number[] = [];
  // each member's bytes and where they start (a part of the last build's, or its own serialized text)
  const members: Array<[Uint8Array, number, number] | undefined> = [];
  for (const r of held) {
    const src = r.src;
    const part = src && read && src.rowLen + src.memLen + 3 === r.bytes && r.entry ? read(src.part) : undefined;
    if (src && part && src.rowAt + src.rowLen <= part.length && src.memAt + src.memLen <= part.length) {
      rows.add(part, src.rowAt, src.rowAt + src.rowLen);
      rowLengths.push(src.rowLen);
      members.push([part, src.memAt, src.memAt + src.memLen]);
    } else {
      const t = texts(r);
      const row = encoder.encode(t.json);
      rows.add(row, 0, row.length);
      rowLengths.push(row.length);
      const m = t.member === undefined ? undefined : encoder.encode(t.member);
      members.push(m && [m, 0, m.length]);
    }
  }
  const order = held.map((_, i) => i).filter((i) => members[i] !== undefined);
  const ids = held.map((r) => r.id);
  order.sort((a, b) => {
    const x = ids[a] as string;
    const y = ids[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const mems = new Runs();
  for (const i of order) mems.add(...(members[i] as [Uint8Array, number, number]));
  const head = encoder.encode(prefix);
  const mid = encoder.encode(middle);
  const tail = encoder.encode(suffix);
  const out = new Uint8Array(head.length + mems.bytes + mid.length + rows.bytes + tail.length);
  out.set(head, 0);
  let at = head.length;
  const memLanded = mems.copy(out, at);
  at += mems.bytes;
  out.set(mid, at);
  at += mid.length;
  const rowLanded = rows.copy(out, at);
  at += rows.bytes;
  out.set(tail, at);
  const placed: RowPlace[] = held.map((_, i) => {
    const [run, off] = rows.item[i] as [number, number];
    return { rowAt: (rowLanded[run] as number) + off, rowLen: rowLengths[i] as number, memAt: 0, memLen: 0 };
  });
  for (const [k, i] of order.entries()) {
    const [run, off] = mems.item[k] as [number, number];
    const [, start, end] = members[i] as [Uint8Array, number, number];
    (placed[i] as RowPlace).memAt = (memLanded[run] as number) + off;
    (placed[i] as RowPlace).memLen = end - start;
  }
  return { bytes: out, placed };
}
