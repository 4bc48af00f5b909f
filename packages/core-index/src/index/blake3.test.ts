import { describe, expect, it } from 'vitest';
import { addressOf, blake3HexPure, isAddress } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';

/** Input of the official BLAKE3 test vectors: bytes 0..250 repeating, of length n. */
function vectorInput(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = i % 251;
  return out;
}

// From the BLAKE3 team's test_vectors.json (first 32 bytes of each extended output).
const VECTORS: Array<[number, string]> = [
  [0, 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262'],
  [1, '2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213'],
  [1024, '42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7'],
];

describe('BLAKE3 addresses', () => {
  it('matches the published test vectors', () => {
    for (const [n, hex] of VECTORS) expect(blake3HexPure(vectorInput(n))).toBe(hex);
  });

  it('names bytes as blake3:<64 hex>, and the address hashes back', () => {
    const bytes = canonicalBytes({ kind: 'model-hub.model', id: 'a/b' });
    const address = addressOf(bytes);
    expect(isAddress(address)).toBe(true);
    expect(address).toBe(`blake3:${blake3HexPure(bytes)}`);
    expect(isAddress('blake3:ABC')).toBe(false);
    expect(isAddress(`blake3:${'0'.repeat(63)}`)).toBe(false);
    expect(isAddress(`sha256:${'0'.repeat(64)}`)).toBe(false);
  });
});
