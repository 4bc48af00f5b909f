import { sha256 } from '@noble/hashes/sha256';
import { bytesToHex } from '@noble/hashes/utils';

/** SHA-256 of bytes as 64 lowercase hex characters (pure JS; hosts hash large files with their own streaming code). */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** An incremental SHA-256, for streaming bodies of unknown length in runtime-neutral code. */
export function createSha256(): { update(chunk: Uint8Array): void; hex(): string } {
  const h = sha256.create();
  return {
    update(chunk) {
      h.update(chunk);
    },
    hex() {
      return bytesToHex(h.digest());
    },
  };
}

/** `sha-256=:<base64>:` as RFC 9530 `Repr-Digest` wants it, from a hex digest. */
export function reprDigestFromHex(hex: string): string {
  let binary = '';
  for (let i = 0; i < hex.length; i += 2) binary += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16));
  return `sha-256=:${btoa(binary)}:`;
}
