/** The default hasher of the runtime-neutral client: SHA-256 of @noble/hashes (imported only when it is used). */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

/**
 * A `HasherFactory` (download.ts), typed by its shape: download.ts imports this module on first use, so this module
 * does not import it back (no import circle, type-only imports counted).
 */
export const nobleHasher = (): { update(chunk: Uint8Array): void; digest(): string; dispose?(): void } => {
  const h = sha256.create();
  return {
    update: (c) => {
      h.update(c);
    },
    digest: () => bytesToHex(h.digest()),
  };
};
