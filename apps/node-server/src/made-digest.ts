import zlib from 'node:zlib';
import { MADE_DIGEST_BYTES } from '@hub/core-index';

// The digest that ends each record of the made-answers file (core-index made-answers.ts): what the writer appends and
// the reader checks before it answers from a record.

/** node:zlib's `crc32` (Node 20.15 and later): about a third of a microsecond for a record of 900 bytes. */
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** CRC-32 (IEEE 802.3, as zlib's) one byte at a time: where node:zlib has none (Node before 20.15). */
let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  if (zlibCrc32) return zlibCrc32(bytes);
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = (crcTable[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A record's digest: the CRC-32 of its fields, little-endian (the file is local state, never a hub object: the check
 * is against damage, see made-answers.ts in core-index).
 */
export function madeDigest(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(MADE_DIGEST_BYTES);
  out.writeUInt32LE(crc32(bytes), 0);
  return out;
}

/** Whether a record (its digest last) matches its digest. */
export function madeRecordSound(record: Uint8Array): boolean {
  const end = record.length - MADE_DIGEST_BYTES;
  if (end < 0) return false;
  const stored =
    (record[end] as number) |
    ((record[end + 1] as number) << 8) |
    ((record[end + 2] as number) << 16) |
    ((record[end + 3] as number) << 24);
  return crc32(record.subarray(0, end)) === stored >>> 0;
}
