/** The posting lists behind `SearchIndex` (search.ts): grams of ids as keys, packed positions, their intersection. */

/** The longest gram indexed: four characters tell ids apart far better than three (`l-12` is only in `model-12…`). */
export const MAX_GRAM = 4;

/** A gram of an id as a map key: its ASCII codes packed into one small integer, else the gram itself. */
export type GramKey = number | string;

export function gramKey(text: string, at: number, length: number): GramKey {
  let key = 0;
  for (let k = at; k < at + length; k++) {
    const c = text.charCodeAt(k);
    if (c > 0x7f) return text.slice(at, at + length);
    key = (key << 7) | c;
  }
  return key;
}

/** Add position `i` to the list of `key` (positions come in ascending order; a key seen twice in one id counts once). */
export function post<K>(map: Map<K, number[]>, key: K, i: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [i]);
  else if (list[list.length - 1] !== i) list.push(i);
}

/** Packed postings: a quarter to half the memory of arrays of numbers, and read as fast. */
export function pack<K>(from: Map<K, number[]>, to: Map<K, Int32Array>): void {
  for (const [k, v] of from) to.set(k, Int32Array.from(v));
}

/** Positions in both ascending lists, ascending (a merge: only lists of like length are intersected). */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x < y) i++;
    else if (x > y) j++;
    else {
      out[n++] = x;
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}
