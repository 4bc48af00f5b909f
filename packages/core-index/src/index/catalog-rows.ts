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
  const rows: Uint8Array[] = [];
  const members: Array<Uint8Array | undefined> = [];
  for (const r of held) {
    const src = r.src;
    const part = src && read && src.rowLen + src.memLen + 3 === r.bytes && r.entry ? read(src.part) : undefined;
    if (src && part && src.rowAt + src.rowLen <= part.length && src.memAt + src.memLen <= part.length) {
      rows.push(part.subarray(src.rowAt, src.rowAt + src.rowLen));
      members.push(part.subarray(src.memAt, src.memAt + src.memLen));
    } else {
      const t = texts(r);
      rows.push(encoder.encode(t.json));
      members.push(t.member === undefined ? undefined : encoder.encode(t.member));
    }
  }
  const order = held.map((_, i) => i).filter((i) => members[i] !== undefined);
  order.sort((a, b) => {
    const x = (held[a] as RowText).id;
    const y = (held[b] as RowText).id;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const head = encoder.encode(prefix);
  const mid = encoder.encode(middle);
  const tail = encoder.encode(suffix);
  let size = head.length + mid.length + tail.length + Math.max(0, order.length - 1) + Math.max(0, rows.length - 1);
  for (const r of rows) size += r.length;
  for (const i of order) size += (members[i] as Uint8Array).length;
  const out = new Uint8Array(size);
  const placed: RowPlace[] = held.map(() => ({ rowAt: 0, rowLen: 0, memAt: 0, memLen: 0 }));
  out.set(head, 0);
  let at = head.length;
  for (const [k, i] of order.entries()) {
    if (k > 0) out[at++] = comma;
    const m = members[i] as Uint8Array;
    out.set(m, at);
    (placed[i] as RowPlace).memAt = at;
    (placed[i] as RowPlace).memLen = m.length;
    at += m.length;
  }
  out.set(mid, at);
  at += mid.length;
  for (const [i, r] of rows.entries()) {
    if (i > 0) out[at++] = comma;
    out.set(r, at);
    (placed[i] as RowPlace).rowAt = at;
    (placed[i] as RowPlace).rowLen = r.length;
    at += r.length;
  }
  out.set(tail, at);
  return { bytes: out, placed };
}
