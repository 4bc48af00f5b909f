/**
 * FNV-1a in two 32-bit lanes over bytes: the one loop behind the answers' ETags (`fnv1a`, `fnv1aText` in
 * http/contract.ts) and the made answers' key hash (made-answers.ts). Not for integrity.
 */

const encoder = new TextEncoder();

/** The lanes of the last {@link fnvLanesOf} or {@link fnvLanesOfText}, unsigned (read them before the next call). */
export const fnvLanes = new Uint32Array(2);

/** Two FNV-1a lanes of `bytes` into {@link fnvLanes}: the plain one, and one of another prime seeded by the length. */
export function fnvLanesOf(bytes: Uint8Array): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b, 0x0100019d);
  }
  fnvLanes[0] = h1;
  fnvLanes[1] = h2;
}

/**
 * {@link fnvLanesOf} the UTF-8 bytes of `text`, without encoding the text when it is ASCII (an id or a query string
 * almost always is): the same loop over character codes, which are the bytes.
 */
export function fnvLanesOfText(text: string): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const b = text.charCodeAt(i);
    if (b > 0x7f) {
      fnvLanesOf(encoder.encode(text));
      return;
    }
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b, 0x0100019d);
  }
  fnvLanes[0] = h1;
  fnvLanes[1] = h2;
}

/** murmur3's 32-bit finaliser: mixes every bit of `h` into the low ones (FNV's low bits hardly mix). Unsigned. */
export function fmix32(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
