import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

const SMALL_FILE = 1 << 20;

/** SHA-256 of a file, streamed: never the whole file in memory. */
export async function sha256File(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  // A small file in one read (a stream costs more than the hash for the config and README files of a tree).
  if ((await stat(file)).size <= SMALL_FILE) {
    const bytes = await readFile(file);
    return { sha256: hash.update(bytes).digest('hex'), size: bytes.byteLength };
  }
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest('hex'), size };
}
