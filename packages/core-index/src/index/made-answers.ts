import { fmix32, fnvLanes, fnvLanesOfText } from './fnv.js';
import type { IndexedModel, PreparedBody } from './store-types.js';

/**
 * Answers made before they are asked (issue 39, random look-ups at any size): after a build, a host with a local
 * disk renders the answers every model has (the model-host dialect's model info) once, into one file of records
 * found through a hash table of keys, so a cold look-up of a day of 1,000,000 models is two positioned reads of one
 * file kept open, and no page read, parse, schema check or render. The file is local state beside the store, as the
 * load pack is: never an object of the store, never listed, served or published; it is derived from the day's
 * checked pages, names the day's pages root, and is replaced whole by the next day's.
 *
 * This module is the layout, shared by the writer and the reader (node-server's made-answers-file.ts); both need only
 * positioned reads and writes.
 *
 * Layout (integers little-endian):
 * - bytes 0–8: {@link MADE_MAGIC}; 8–12: the head's length; then the head ({@link MadeHead}) as JSON, padded with
 *   spaces up to {@link MADE_SLOTS_AT}.
 * - the slot table at {@link MADE_SLOTS_AT}: `slots` (a power of two, at least twice the records) of 16 bytes: two
 *   32-bit lanes of the key's hash ({@link madeKeyHash}), the record's offset in units of 8 bytes from the start of
 *   the file, and its length (0: an empty slot). Linear probing from `lane1 & (slots - 1)`.
 * - the records, each at a multiple of 8: a 12-byte header (the lengths of the key, the content type and the ETag as
 *   16-bit integers, two bytes unused, the body's length as 32 bits), the key, the content type, the ETag, the body,
 *   and the CRC-32 of everything before it in the record (4 bytes, little-endian), so a damaged record is refused.
 *   The records of one models page are together, in browse order. (Version 1 ended each record with its SHA-256: two
 *   microseconds a look-up on this project's machines against a third of one, for a check of local state against
 *   damage, which a CRC is made for; a file of version 1 is refused and written again by the next build.)
 * - the models pages at `pagesAt`, {@link MADE_PAGE_BYTES} each: the page's BLAKE3 (32 bytes), where its records
 *   start and end (in units of 8 bytes). The next day's writer copies the records of a page it finds here unchanged
 *   instead of reading and rendering its models again, so a day costs what changed.
 */

export const MADE_MAGIC = 'HUBMADE\n';
export const MADE_KIND = 'model-hub.made-answers';
export const MADE_VERSION = 2;
/** Where the slot table starts: the head is padded to here. */
export const MADE_SLOTS_AT = 4096;
export const MADE_SLOT_BYTES = 16;
export const MADE_RECORD_HEAD = 12;
export const MADE_DIGEST_BYTES = 4;
export const MADE_PAGE_BYTES = 40;

/** The head of a made-answers file. */
export interface MadeHead {
  kind: typeof MADE_KIND;
  version: typeof MADE_VERSION;
  /** the day's catalog and pages root: a file of another day is not read */
  catalog: string;
  pages: string;
  /** the makers whose answers it holds, by id, in order (a host with other makers does not read it) */
  makers: string[];
  slots: number;
  records: number;
  /** where the records start, where the models pages start and how many, and the file's length */
  dataAt: number;
  pagesAt: number;
  pageCount: number;
  size: number;
}

/**
 * One kind of answer made for every model: its key (what the dialect asks for, such as its memo key) and its body,
 * exactly as the dialect's own route makes it (the reader's host compares a few on open: a file made by other code
 * is not used).
 */
export interface MadeAnswerMaker {
  /** names the kind of answer and its form; recorded in the file's head */
  readonly id: string;
  key(model: IndexedModel): string;
  make(model: IndexedModel): PreparedBody;
}

/** What a store asks a made-answers file: the answer kept under `key`, or undefined (not made, or refused). */
export interface MadeAnswers {
  get(key: string): PreparedBody | undefined;
}

const encoder = new TextEncoder();

/** Two 32-bit lanes of FNV-1a over the key's UTF-8 bytes (fnv.ts); the first finished with murmur3's mixer (it picks the slot). */
export function madeKeyHash(key: string): [number, number] {
  fnvLanesOfText(key);
  return [fmix32(fnvLanes[0] as number), fnvLanes[1] as number];
}

/** The slot count for `records` records: a power of two, at least twice as many (probes stay short). */
export function madeSlotCount(records: number): number {
  let n = 16;
  while (n < records * 2) n *= 2;
  return n;
}

/** The bytes a record of `length` bytes takes in the file: records start at multiples of 8, padded with zeros. */
export function madeRecordSpan(length: number): number {
  return length + ((8 - (length % 8)) % 8);
}

/** The bytes a record takes before its padding to 8. */
export function madeRecordLength(key: Uint8Array, contentType: Uint8Array, etag: Uint8Array, body: Uint8Array): number {
  return recordLength({ key: key.length, type: contentType.length, etag: etag.length, body: body.length });
}

/**
 * A record's fields without its digest (the caller appends the CRC-32 of these bytes), or a reason it cannot be
 * written (a field longer than its length field holds).
 */
export function madeRecordFields(key: string, answer: PreparedBody): Uint8Array | string {
  const k = encoder.encode(key);
  const ct = encoder.encode(answer.contentType);
  const etag = encoder.encode(answer.etag);
  if (k.length > 0xffff || ct.length > 0xffff || etag.length > 0xffff) return `a field of the answer ${key.slice(0, 80)} is too long`;
  const out = new Uint8Array(madeRecordLength(k, ct, etag, answer.bytes) - MADE_DIGEST_BYTES);
  const view = new DataView(out.buffer);
  view.setUint16(0, k.length, true);
  view.setUint16(2, ct.length, true);
  view.setUint16(4, etag.length, true);
  view.setUint32(8, answer.bytes.length, true);
  let at = MADE_RECORD_HEAD;
  for (const part of [k, ct, etag, answer.bytes]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const decoder = new TextDecoder();

/** UTF-8 text of `length` bytes from `at`: ASCII (ids, content types, ETags) without a decoder call. */
function text(bytes: Uint8Array, at: number, length: number): string {
  const view = bytes.subarray(at, at + length);
  for (let i = 0; i < view.length; i++) if ((view[i] as number) > 0x7f) return decoder.decode(view);
  return String.fromCharCode.apply(null, view as unknown as number[]);
}

/** Whether `length` bytes of `bytes` from `at` are the UTF-8 of `key` (ASCII compared as is, without encoding it). */
function sameKey(bytes: Uint8Array, at: number, length: number, key: string): boolean {
  if (length === key.length) {
    let ascii = true;
    for (let i = 0; i < length; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) {
        ascii = false;
        break;
      }
      if (bytes[at + i] !== c) return false;
    }
    if (ascii) return true;
  }
  const k = encoder.encode(key);
  if (k.length !== length) return false;
  for (let i = 0; i < length; i++) if (bytes[at + i] !== k[i]) return false;
  return true;
}

/** The last content type read, so the one every record of a maker shares is not decoded again for each. */
let lastContentType: { bytes: Uint8Array; text: string } | undefined;

function contentTypeAt(record: Uint8Array, at: number, length: number): string {
  const last = lastContentType;
  if (last && last.bytes.length === length) {
    let same = true;
    for (let i = 0; i < length; i++)
      if (record[at + i] !== last.bytes[i]) {
        same = false;
        break;
      }
    if (same) return last.text;
  }
  const t = text(record, at, length);
  lastContentType = { bytes: record.slice(at, at + length), text: t };
  return t;
}

/** A record's field lengths, from its head at `at`: the key, the content type, the ETag and the body. */
interface RecordLengths {
  key: number;
  type: number;
  etag: number;
  body: number;
}

function lengthsAt(bytes: Uint8Array, at: number): RecordLengths {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, MADE_RECORD_HEAD);
  return { key: view.getUint16(0, true), type: view.getUint16(2, true), etag: view.getUint16(4, true), body: view.getUint32(8, true) };
}

/** The bytes a record of these field lengths takes, its head and digest included (not its padding). */
function recordLength(l: RecordLengths): number {
  return MADE_RECORD_HEAD + l.key + l.type + l.etag + l.body + MADE_DIGEST_BYTES;
}

/** A record's field lengths when they add up to `record`'s length; undefined when they do not. */
function lengthsOf(record: Uint8Array): RecordLengths | undefined {
  if (record.length < MADE_RECORD_HEAD + MADE_DIGEST_BYTES) return undefined;
  const l = lengthsAt(record, 0);
  return recordLength(l) === record.length ? l : undefined;
}

/** The answer a record holds after its key. */
function answerOf(record: Uint8Array, l: RecordLengths): PreparedBody {
  let at = MADE_RECORD_HEAD + l.key;
  const contentType = contentTypeAt(record, at, l.type);
  at += l.type;
  const etag = text(record, at, l.etag);
  at += l.etag;
  return { bytes: record.subarray(at, at + l.body), contentType, etag };
}

/**
 * The answer of a record that holds `key` (its key compared as bytes, not decoded), `null` when it holds another
 * key, undefined when its lengths do not add up to `record`'s length (the digest is the caller's check).
 */
export function madeRecordAnswer(record: Uint8Array, key: string): PreparedBody | null | undefined {
  const l = lengthsOf(record);
  if (!l) return undefined;
  return sameKey(record, MADE_RECORD_HEAD, l.key, key) ? answerOf(record, l) : null;
}

/**
 * A record's key and answer, when its lengths add up to `record`'s length (the digest is the caller's check);
 * undefined when they do not.
 */
export function madeRecordRead(record: Uint8Array): { key: string; answer: PreparedBody } | undefined {
  const l = lengthsOf(record);
  return l ? { key: text(record, MADE_RECORD_HEAD, l.key), answer: answerOf(record, l) } : undefined;
}

/** The head's bytes (magic, length, JSON), padded to {@link MADE_SLOTS_AT}; undefined when the head does not fit. */
export function madeHeadBytes(head: MadeHead): Uint8Array | undefined {
  const json = encoder.encode(JSON.stringify(head));
  if (12 + json.length > MADE_SLOTS_AT) return undefined;
  const out = new Uint8Array(MADE_SLOTS_AT).fill(0x20);
  out.set(encoder.encode(MADE_MAGIC), 0);
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  return out;
}

/** The head of a file from its first {@link MADE_SLOTS_AT} bytes, or the reason it is not one this code reads. */
export function madeHeadRead(first: Uint8Array): MadeHead | string {
  if (first.length < 12 || decoder.decode(first.subarray(0, 8)) !== MADE_MAGIC) return 'not a made-answers file';
  const len = new DataView(first.buffer, first.byteOffset, first.byteLength).getUint32(8, true);
  if (12 + len > first.length) return 'its head is cut';
  let head: MadeHead;
  try {
    head = JSON.parse(decoder.decode(first.subarray(12, 12 + len))) as MadeHead;
  } catch {
    return 'its head is not JSON';
  }
  if (head?.kind !== MADE_KIND || head.version !== MADE_VERSION) return `not a made-answers file of version ${MADE_VERSION}`;
  const slots = head.slots;
  if (!Number.isSafeInteger(slots) || slots < 16 || (slots & (slots - 1)) !== 0 || head.dataAt !== MADE_SLOTS_AT + slots * MADE_SLOT_BYTES)
    return 'its slot table does not add up';
  if (
    !Array.isArray(head.makers) ||
    !Number.isSafeInteger(head.pagesAt) ||
    !Number.isSafeInteger(head.pageCount) ||
    head.pagesAt < head.dataAt ||
    head.size !== head.pagesAt + head.pageCount * MADE_PAGE_BYTES
  )
    return 'its head does not add up';
  return head;
}

/** The length of the record that starts at `at` in `bytes` (its digest included, its padding not), from its header. */
export function madeRecordLengthAt(bytes: Uint8Array, at: number): number {
  return recordLength(lengthsAt(bytes, at));
}
