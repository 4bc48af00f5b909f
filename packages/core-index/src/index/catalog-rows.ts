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
  row: Row;
  entry: Entry | undefined;
  json: string | undefined;
  member: string | undefined;
  bytes: number;
  /** the key of the input the row and its entry's addresses are made from (build-memo.ts `inputKeys`' `full`) */
  key?: string;
}

/** The bytes one row takes in a shard: the row, the entry keyed by the id, and the separators. */
export function rowText(row: Row, entry: Entry | undefined, json = canonicalJson(row)): RowText {
  const member = entry ? `${canonicalJson(row.id)}:${canonicalJson(entry)}` : undefined;
  return { row, entry, json, member, bytes: utf8Length(json) + (member ? utf8Length(member) + 1 : 0) + 2 };
}

/** A row's texts, serialized now when it came with its size alone (checked to take that size). */
function texts(r: RowText): { json: string; member: string | undefined } {
  if (r.json === undefined) {
    const made = rowText(r.row, r.entry);
    if (made.bytes !== r.bytes) throw new Error(`catalog row ${r.row.id}: ${made.bytes} bytes, its input's last build gave ${r.bytes}`);
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

/** The `objects` members of rows, in key order (UTF-16 code units, as RFC 8785 sorts), and the rows, as texts. */
export function memberAndRowTexts(held: readonly RowText[]): { objects: string; rows: string } {
  const members = new Map<string, string>();
  const rows: string[] = [];
  for (const r of held) {
    const t = texts(r);
    rows.push(t.json);
    if (t.member) members.set(r.row.id, t.member);
  }
  const ids = [...members.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { objects: ids.map((id) => members.get(id)).join(','), rows: rows.join(',') };
}

/** The canonical bytes of a shard from its rows' texts (the same bytes as `canonicalBytes` of the shard object). */
export function shardBytes(held: readonly RowText[]): Uint8Array {
  const { objects, rows } = memberAndRowTexts(held);
  return encoder.encode(`{"kind":"${CATALOG_SHARD_KIND}","objects":{${objects}},"rows":[${rows}]}`);
}
