/**
 * One entry of a hashed bucket (page-layout.ts `HashedMap`), found in the bucket's canonical bytes without parsing
 * the rest (docs/decisions/scale-and-speed.md "A look-up parses its own entry"). A bucket is
 * `{"entries":{"key":value,…},"kind":…,"role":…}`; parsing it whole made V8 intern every key as a property name
 * (about 8 model ids a bucket), and at 1,000,000 models, where look-ups are random, that grew the string table with
 * every look-up: 11–12 µs a parse of a fresh 1.6 KB bucket against 4 µs for one parsed before. The scan walks the
 * members of `entries` at depth one, compares each key's bytes with the key's canonical form (canonical JSON escapes a
 * string one way only, so equal bytes are the equal key), skips the other values, and parses the one value it needs.
 */
import { canonicalJson } from './canonical-json.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PREFIX = encoder.encode('{"entries":{');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Returned when the bytes are not a bucket of that form (the caller parses them whole). */
export const NOT_A_BUCKET: unique symbol = Symbol('not a bucket');

/**
 * The value of `key` in a bucket's bytes, undefined when the bucket has no such key, or {@link NOT_A_BUCKET} when
 * the bytes do not hold a bucket in canonical form.
 */
export function bucketEntry(bytes: Uint8Array, key: string): unknown {
  if (bytes.length < PREFIX.length + 1) return NOT_A_BUCKET;
  for (let k = 0; k < PREFIX.length; k++) if (bytes[k] !== PREFIX[k]) return NOT_A_BUCKET;
  const needle = quoted(key);
  let i = PREFIX.length;
  if (bytes[i] === CLOSE_BRACE) return undefined;
  for (;;) {
    if (bytes[i] !== QUOTE) return NOT_A_BUCKET;
    const keyEnd = skipString(bytes, i);
    if (keyEnd < 0 || bytes[keyEnd] !== COLON) return NOT_A_BUCKET;
    const valueStart = keyEnd + 1;
    const valueEnd = skipValue(bytes, valueStart);
    if (valueEnd < 0) return NOT_A_BUCKET;
    if (keyEnd - i === needle.length && sameBytes(bytes, i, needle)) {
      try {
        return JSON.parse(decoder.decode(bytes.subarray(valueStart, valueEnd)));
      } catch {
        return NOT_A_BUCKET;
      }
    }
    if (bytes[valueEnd] === CLOSE_BRACE) return undefined;
    if (bytes[valueEnd] !== COMMA) return NOT_A_BUCKET;
    i = valueEnd + 1;
  }
}

/** The key's canonical JSON string as bytes: built directly for printable ASCII without quote or backslash. */
function quoted(key: string): Uint8Array {
  const out = new Uint8Array(key.length + 2);
  out[0] = QUOTE;
  for (let k = 0; k < key.length; k++) {
    const c = key.charCodeAt(k);
    if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return encoder.encode(canonicalJson(key));
    out[k + 1] = c;
  }
  out[key.length + 1] = QUOTE;
  return out;
}

function sameBytes(bytes: Uint8Array, at: number, needle: Uint8Array): boolean {
  for (let k = 0; k < needle.length; k++) if (bytes[at + k] !== needle[k]) return false;
  return true;
}

/**
 * The index just past the string that opens at `i` (a quote), or -1 when it does not close: from quote to quote with
 * the typed array's own `indexOf` (most of a bucket's bytes are inside its addresses), a quote after an odd run of
 * backslashes being part of the string.
 */
function skipString(bytes: Uint8Array, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = bytes.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let b = q - 1; b > i && bytes[b] === BACKSLASH; b--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index just past the JSON value that starts at `i`, or -1 when it does not end inside the bytes. */
function skipValue(bytes: Uint8Array, i: number): number {
  let depth = 0;
  for (let k = i; k < bytes.length; k++) {
    const c = bytes[k];
    if (c === QUOTE) {
      k = skipString(bytes, k) - 1;
      if (k < 0) return -1;
      if (depth === 0) return k + 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return k; // the end of a number or literal, at its container's close
      if (--depth === 0) return k + 1;
    } else if (c === COMMA && depth === 0) return k;
  }
  return -1;
}
