import type { Address, ObjectMetadata } from '@hub/core-index';

/**
 * Metadata the filesystem store does not write to a `.meta` file because it can be derived from the object itself
 * (docs/decisions/scale-and-speed.md, "Build speed"): a JSON object (`application/json`, no file name) whose own
 * top-level `kind` is the kind it was put with. Its kind comes from its bytes, its size and creation time from its
 * bytes file. Every other object keeps its `.meta` file, and a store written before keeps reading its `.meta` files.
 */
export const DERIVED_MEDIA_TYPE = 'application/json';
/** Larger objects keep their `.meta` file (a `meta` or `list` would otherwise read a large object to derive it). */
export const DERIVED_MAX_BYTES = 64 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const KIND = [0x6b, 0x69, 0x6e, 0x64]; // kind

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The string value of the top-level key `kind` of a JSON object, read from its bytes without parsing them (no
 * allocation but the value). Undefined when the bytes are not an object whose first `kind` key at depth 1 has a plain
 * string value (no escapes). The same function decides at write and at read, so the two always agree.
 */
export function jsonKind(b: Uint8Array): string | undefined {
  let i = 0;
  const n = b.length;
  while (isSpace(b[i])) i++;
  if (b[i] !== 0x7b) return undefined; // {
  i++;
  let depth = 1;
  let keyNext = true; // at depth 1: the next string is a key
  while (i < n) {
    const c = b[i] as number;
    if (c === QUOTE) {
      const start = i + 1;
      i = start;
      let escaped = false;
      while (i < n && b[i] !== QUOTE) {
        if (b[i] === BACKSLASH) {
          escaped = true;
          i++;
        }
        i++;
      }
      if (i >= n) return undefined;
      const end = i;
      i++;
      if (depth === 1 && keyNext) {
        keyNext = false;
        if (
          !escaped &&
          end - start === 4 &&
          b[start] === KIND[0] &&
          b[start + 1] === KIND[1] &&
          b[start + 2] === KIND[2] &&
          b[start + 3] === KIND[3]
        ) {
          while (isSpace(b[i])) i++;
          if (b[i] !== 0x3a) return undefined; // :
          i++;
          while (isSpace(b[i])) i++;
          if (b[i] !== QUOTE) return undefined;
          const v = i + 1;
          let j = v;
          while (j < n && b[j] !== QUOTE) {
            if (b[j] === BACKSLASH) return undefined;
            j++;
          }
          if (j >= n) return undefined;
          return new TextDecoder().decode(b.subarray(v, j));
        }
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return undefined;
    } else if (c === 0x2c && depth === 1) keyNext = true;
    i++;
  }
  return undefined;
}

/** Whether a put's metadata can be left out of a `.meta` file (derived from the object when read). */
export function derivable(meta: ObjectMetadata, bytes: Uint8Array): boolean {
  return (
    meta.media_type === DERIVED_MEDIA_TYPE &&
    meta.filename === null &&
    bytes.byteLength <= DERIVED_MAX_BYTES &&
    jsonKind(bytes) === meta.kind
  );
}

/** The metadata of an object without a `.meta` file: derived as above, or the unknown kind as before. */
export function derivedMeta(id: Address, bytes: Uint8Array | undefined, size: number, mtimeMs: number): ObjectMetadata {
  const kind = bytes && bytes.byteLength <= DERIVED_MAX_BYTES ? jsonKind(bytes) : undefined;
  if (kind === undefined) {
    return { id, kind: 'unknown', media_type: 'application/octet-stream', size, created_at_millis: 0, filename: null };
  }
  return { id, kind, media_type: DERIVED_MEDIA_TYPE, size, created_at_millis: Math.floor(mtimeMs), filename: null };
}
