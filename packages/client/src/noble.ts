/** The default hasher of the runtime-neutral client: SHA-256 of @noble/hashes (imported only when it is used). */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
// the type from types.ts, not download.ts: download.ts imports this module on first use (no import circle)
import type { HasherFactory } from './types.js';

export const nobleHasher: HasherFactory = () => {
  const h = sha256.create();
  return {
    update: (c) => {
      h.update(c);
    },
    digest: () => bytesToHex(h.digest()),
  };
};
