import { createRequire } from 'node:module';
import { blake3HexPure, useBlake3 } from '@hub/core-index';
import { afterAll, describe, expect, it } from 'vitest';
import { installFastBlake3 } from './blake3-node.js';

describe('blake3-wasm on Node', () => {
  afterAll(() => useBlake3(blake3HexPure));
  it('installs (loaded by the first hash) and agrees with the pure implementation on many lengths', async () => {
    installFastBlake3();
    const { blake3Hex } = await import('@hub/core-index');
    // (larger than 1 MiB: hashed in pieces)
    for (const n of [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 4097, 100_000, 2 ** 20, 2 ** 20 + 1, 3 * 2 ** 20 + 4097]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 31) % 251);
      expect(blake3Hex(bytes)).toBe(blake3HexPure(bytes));
    }
    // the digests came from blake3-wasm, not the pure fallback: the first hash loaded it
    expect(Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/blake3-wasm/'))).toBe(true);
  });
});
