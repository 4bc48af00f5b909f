/** The default hasher of the runtime-neutral client: SHA-256 of @noble/hashes (imported only when it is used). */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import type { HasherFactory } from './download.js';

export const nobleHasher: HasherFactory = () => {
  const h = sha256.create();
  return {
    update: (c) => {
      h.update(c);
    },
    digest: () => bytesToHex(h.digest()),
  };
};
