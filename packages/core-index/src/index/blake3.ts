import { blake3 } from '@noble/hashes/blake3';
import { bytesToHex } from '@noble/hashes/utils';

/** A function that returns the 32-byte BLAKE3 digest of its input as 64 lowercase hex characters. */
export type Blake3Hex = (bytes: Uint8Array) => string;

const pureBlake3: Blake3Hex = (bytes) => bytesToHex(blake3(bytes));
let impl: Blake3Hex = pureBlake3;

/**
 * Replace the BLAKE3 implementation (a host may install a faster one, such as blake3-wasm on Node).
 * The replacement must give identical output; the test suite checks both against published vectors.
 */
export function useBlake3(fn: Blake3Hex): void {
  impl = fn;
}

/** The pure-JS implementation, always available (workerd, browsers, Node). */
export const blake3HexPure: Blake3Hex = pureBlake3;

export function blake3Hex(bytes: Uint8Array): string {
  return impl(bytes);
}

export const ADDRESS_PATTERN = /^blake3:[0-9a-f]{64}$/;

export type Address = `blake3:${string}`;

/** The hub address of some bytes: `blake3:` and the BLAKE3 hex digest. */
export function addressOf(bytes: Uint8Array): Address {
  return `blake3:${impl(bytes)}`;
}

export function isAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS_PATTERN.test(value);
}
