import { createRequire } from 'node:module';
import { blake3HexPure, useBlake3 } from '@hub/core-index';

const EMPTY_BLAKE3 = 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262';
/**
 * Inputs larger than this are hashed in pieces of it: `hash` copies its whole input into the module's memory, which
 * grows to the largest input and never shrinks (a catalog shard of 33 MB left 37 MB there for the rest of a build).
 */
const PIECE = 1 << 20;

interface Blake3Wasm {
  hash(data: Uint8Array): Buffer;
  createHash(): { update(data: Uint8Array): unknown; digest(encoding: 'hex'): string };
}

/** blake3-wasm (Node build, loaded synchronously) if it loads and hashes correctly, else the pure-JS implementation. */
function loadBlake3Wasm(): (bytes: Uint8Array) => string {
  try {
    const require = createRequire(import.meta.url);
    const b3 = require('blake3-wasm') as Blake3Wasm;
    if (b3.hash(new Uint8Array()).toString('hex') === EMPTY_BLAKE3)
      return (bytes) => {
        if (bytes.length <= PIECE) return b3.hash(bytes).toString('hex');
        // (digest frees the hasher)
        const h = b3.createHash();
        for (let at = 0; at < bytes.length; at += PIECE) h.update(bytes.subarray(at, at + PIECE));
        return h.digest('hex');
      };
  } catch {
    // not installed or not loadable here: the pure implementation gives the same digests
  }
  return blake3HexPure;
}

/**
 * Install blake3-wasm as the BLAKE3 implementation (about 10× the pure-JS speed), loaded by the first hash: a start
 * that hashes nothing (a verified catalog read from its load pack) never loads or compiles the WASM module
 * (docs/decisions/scale-and-speed.md, "A start loads what it serves").
 */
export function installFastBlake3(): void {
  let fast: ((bytes: Uint8Array) => string) | undefined;
  useBlake3((bytes) => {
    fast ??= loadBlake3Wasm();
    return fast(bytes);
  });
}
