// The build memo's binary records (build-memo.ts): hex in and out of bytes, and chunk objects put as they fill.
import { addressOf, blake3Hex } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';

export const MEMO_CHUNK_KIND = 'model-hub.build-memo-chunk';
/** A chunk is put once its records pass this many bytes. */
const CHUNK_BYTES = 1 << 20;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let keyBuf = new Uint8Array(4096);

/**
 * The keys of a model's input, 32 hex digits (128 bits of BLAKE3) each. `objects`: of the parts its model and source
 * objects are made from (everything but the browse row): the same key, the same objects. `full`: of those parts, the
 * browse row, and its sources' display names: with the same model address, the same catalog row, the same catalog
 * member and the same models page entry (what `modelRow` reads is all in it). Serialized with `JSON.stringify`, not
 * canonical JSON: another member order only misses the memo, and it costs a fraction of canonical JSON. `full` is
 * asked first (one hash for a model whose input did not change at all); `objects` is hashed only when asked.
 */
export function inputKeys(
  m: {
    id: string;
    revision?: string;
    license?: string | null;
    files: unknown;
    facts?: unknown;
    signature?: unknown;
    scan?: unknown;
    sources: unknown;
    row?: unknown;
  },
  names: readonly string[],
): { full: string; objects: () => string } {
  const parts = JSON.stringify([
    m.id,
    m.revision ?? null,
    m.license ?? null,
    m.files,
    m.facts ?? null,
    m.signature ?? null,
    m.scan ?? null,
    m.sources,
  ]);
  const full = hashText(`${parts.slice(0, -1)},${JSON.stringify(m.row ?? null)},${JSON.stringify(names)}]`);
  return { full, objects: () => hashText(parts) };
}

/** 32 hex digits of BLAKE3 of a text, encoded into one reused buffer (a UTF-16 code unit is at most 3 UTF-8 bytes). */
function hashText(text: string): string {
  if (keyBuf.length < text.length * 3) keyBuf = new Uint8Array(text.length * 3);
  return blake3Hex(keyBuf.subarray(0, encoder.encodeInto(text, keyBuf).written)).slice(0, 32);
}

export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x3fffffff;
}

const nibble = (c: number) => (c <= 57 ? c - 48 : c - 87);
export function putHex(buf: Uint8Array, at: number, hex: string, bytes: number): void {
  for (let k = 0; k < bytes; k++) buf[at + k] = (nibble(hex.charCodeAt(k * 2)) << 4) | nibble(hex.charCodeAt(k * 2 + 1));
}

/** The hex digits of each byte value as two ASCII bytes (high digit in the upper byte), for {@link hexAt}. */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, b) => {
  const d = (v: number) => (v < 10 ? 48 + v : 87 + v);
  return (d(b >> 4) << 8) | d(b & 15);
});
const hexOut = new Uint8Array(64);
/** `bytes` bytes from `at` as lower-case hex: written as ASCII into one buffer and decoded once (one string made). */
export function hexAt(buf: Uint8Array, at: number, bytes: number): string {
  for (let k = 0; k < bytes; k++) {
    const pair = HEX_PAIRS[buf[at + k] as number] as number;
    hexOut[k * 2] = pair >> 8;
    hexOut[k * 2 + 1] = pair & 0xff;
  }
  return decoder.decode(hexOut.subarray(0, bytes * 2));
}

export const bare = (address: string) => (address.startsWith('blake3:') ? address.slice(7) : address);

/** Records appended in order and put as chunk objects of about {@link CHUNK_BYTES}. */
export class ChunkWriter {
  /** grown as records come (a memo of a few models keeps a few bytes), to a chunk and the record that passes it */
  private buf = new Uint8Array(64 * 1024);
  private at = 0;
  readonly addresses: string[] = [];
  private readonly puts: Array<Promise<unknown>> = [];

  constructor(private readonly objects: ObjectStore) {}

  /** Room for `n` more bytes; returns the buffer and where to write. */
  room(n: number): [Uint8Array, number] {
    if (this.at + n > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
      bigger.set(this.buf.subarray(0, this.at));
      this.buf = bigger;
    }
    const at = this.at;
    this.at += n;
    return [this.buf, at];
  }

  /** A record is complete: put the chunk when it is full. */
  end(): void {
    if (this.at >= CHUNK_BYTES) this.flush();
  }

  flush(): void {
    if (this.at === 0) return;
    const bytes = this.buf.slice(0, this.at);
    this.at = 0;
    this.addresses.push(addressOf(bytes));
    this.puts.push(this.objects.put(bytes, { kind: MEMO_CHUNK_KIND, mediaType: 'application/octet-stream' }));
  }

  async done(): Promise<string[]> {
    this.flush();
    await Promise.all(this.puts.splice(0));
    return this.addresses;
  }
}

/** What a build made of one model's input. Addresses are 64 hex digits (no `blake3:`). */
export interface MemoModel {
  /** {@link inputKey} of the input */
  key: string;
  model: string;
  /** the model object's `prev` */
  prev: string | null;
  /** what the build's base catalog named for this id: 0 nothing, 1 `model` (unchanged), 2 `prev` (changed) */
  base: 0 | 1 | 2;
  revision: string;
  sources: string[];
  /**
   * {@link inputKeys}' `full` key (the row's input too), and the bytes the row took in the catalog (`rowText`'s
   * `bytes`, catalog-shards.ts): absent in a memo written before they were kept
   */
  full?: string;
  rowBytes?: number;
  /** the model's rank in the memo's build (where its row's place is, {@link BuildMemo.source}) */
  rank?: number;
  /** how many files the model has and their bytes (the day's totals, for a model taken unchanged without its input) */
  files?: number;
  bytes?: number;
}

/** The memo's root object (`MEMO_KIND`): its chunk lists and what the build was made on. */
export interface MemoRoot {
  kind: string;
  /** the catalog the build wrote, and the catalog it chained to (its base) */
  catalog: string;
  base: string | null;
  /** `pagesFormat` (pages-format.ts) of the build that wrote the pages' records */
  format: string;
  models: string[];
  pages: string[];
  /** the look-up pages and catalog shards: 16 bytes of key and 32 of address each */
  looks?: string[];
  /** where each row lies in the catalog, by rank: its part's index and its {@link RowPlace}, 20 bytes each */
  rows?: string[];
  /** the catalog's parts (the catalog object, or its shards), 64 hex digits each */
  parts?: string[];
  /** what the build's terms and digest map came to (index/day-sections.ts), for the next build's patch of them */
  sectionSizes?: unknown;
  /** the pages root the build wrote, and the key of its models pages' list (models-pages.ts `modelsListKey`) */
  root?: string;
  list?: string;
  /** the stamp of the build's input (`BuildInput.stamp`), which the next build's unchanged models are said against */
  stamp?: string;
  /** each model's part of the look-up tables by rank (memo-facts.ts), and the source sets they name */
  facts?: string[];
  sets?: unknown;
  /** each model's section facts (its tags and digests) by rank: an index (8 bytes a rank) and the data it points in */
  sectionIndex?: string[];
  sectionData?: string[];
  /** each model's position in the build's pages by rank (positions.ts), 4 bytes each */
  positions?: string[];
}

/** Append a model's record: its id, keys, addresses, flags (1 prev, 2–4 base, 8 full key, 16 size) and revision. */
export function writeModel(models: ChunkWriter, id: string, m: MemoModel): void {
  const idBytes = encoder.encode(id);
  const rev = encoder.encode(m.revision);
  const full = m.full !== undefined && m.rowBytes !== undefined && m.rank !== undefined;
  const sized = m.files !== undefined && m.bytes !== undefined;
  const [buf, start] = models.room(
    2 + idBytes.length + 16 + 32 + 1 + (m.prev ? 32 : 0) + (full ? 24 : 0) + (sized ? 12 : 0) + 2 + rev.length + 2 + 32 * m.sources.length,
  );
  const view = new DataView(buf.buffer, buf.byteOffset);
  let at = start;
  view.setUint16(at, idBytes.length);
  buf.set(idBytes, at + 2);
  at += 2 + idBytes.length;
  putHex(buf, at, m.key, 16);
  putHex(buf, at + 16, bare(m.model), 32);
  buf[at + 48] = (m.prev ? 1 : 0) | (m.base << 1) | (full ? 8 : 0) | (sized ? 16 : 0);
  at += 49;
  if (m.prev) {
    putHex(buf, at, bare(m.prev), 32);
    at += 32;
  }
  if (full) {
    putHex(buf, at, m.full as string, 16);
    view.setUint32(at + 16, m.rowBytes as number);
    view.setUint32(at + 20, m.rank as number);
    at += 24;
  }
  if (sized) {
    view.setUint32(at, m.files as number);
    view.setFloat64(at + 4, m.bytes as number);
    at += 12;
  }
  view.setUint16(at, rev.length);
  buf.set(rev, at + 2);
  at += 2 + rev.length;
  view.setUint16(at, m.sources.length);
  at += 2;
  for (const s of m.sources) {
    putHex(buf, at, bare(s), 32);
    at += 32;
  }
  models.end();
}

/** The id of the model record at `at` and where the next record starts. */
export function modelIdAt(buf: Uint8Array, view: DataView, at: number): { id: string; next: number } {
  const idLength = view.getUint16(at);
  const id = decoder.decode(buf.subarray(at + 2, at + 2 + idLength));
  let next = at + 2 + idLength + 48;
  const flags = buf[next] as number;
  next += 1 + (flags & 1 ? 32 : 0) + (flags & 8 ? 24 : 0) + (flags & 16 ? 12 : 0);
  next += 2 + view.getUint16(next);
  next += 2 + 32 * view.getUint16(next);
  return { id, next };
}

/** The model record at `start` when it is of `id`. */
export function readModel(buf: Uint8Array, start: number, id: string): MemoModel | undefined {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = start;
  const idLength = view.getUint16(at);
  if (decoder.decode(buf.subarray(at + 2, at + 2 + idLength)) !== id) return undefined;
  at += 2 + idLength;
  const key = hexAt(buf, at, 16);
  const model = hexAt(buf, at + 16, 32);
  const flags = buf[at + 48] as number;
  at += 49;
  let prev: string | null = null;
  if (flags & 1) {
    prev = hexAt(buf, at, 32);
    at += 32;
  }
  let whole: Pick<MemoModel, 'full' | 'rowBytes' | 'rank'> = {};
  if (flags & 8) {
    whole = { full: hexAt(buf, at, 16), rowBytes: view.getUint32(at + 16), rank: view.getUint32(at + 20) };
    at += 24;
  }
  let size: { files: number; bytes: number } | undefined;
  if (flags & 16) {
    size = { files: view.getUint32(at), bytes: view.getFloat64(at + 4) };
    at += 12;
  }
  const revLength = view.getUint16(at);
  const revision = decoder.decode(buf.subarray(at + 2, at + 2 + revLength));
  at += 2 + revLength;
  const sources: string[] = [];
  const n = view.getUint16(at);
  at += 2;
  for (let k = 0; k < n; k++, at += 32) sources.push(hexAt(buf, at, 32));
  return { key, model, prev, base: ((flags >> 1) & 3) as 0 | 1 | 2, revision, sources, ...whole, ...size };
}
