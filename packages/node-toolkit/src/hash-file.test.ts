import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { hashFileStamped, SMALL_FILE } from './hash-file.js';
import { tempDirs } from './testing/temp-dirs.js';

const tmp = tempDirs(afterAll);

it('hashes small files in one read and big ones in worker threads, with the same SHA-256 as node:crypto', async () => {
  const dir = await tmp('hub-hash-');
  const sizes = [0, 5, SMALL_FILE, SMALL_FILE + 1, 3 * SMALL_FILE + 7, 2 * SMALL_FILE, 5 * SMALL_FILE + 3];
  const files = sizes.map((size, i) => {
    const bytes = Buffer.alloc(size);
    for (let k = 0; k < size; k += 997) bytes[k] = (k + i) & 0xff;
    const file = path.join(dir, `f${i}.bin`);
    writeFileSync(file, bytes);
    return { file, size, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  // More big files at once than the pool has workers: the queue serves them all.
  const got = await Promise.all(files.map((f) => hashFileStamped(f.file)));
  for (const [i, f] of files.entries()) {
    expect(got[i]).toMatchObject({ sha256: f.sha256, size: f.size, stamp: { size: f.size } });
  }
  // Only small files give their first bytes (for the GGUF magic check).
  expect(got[1]?.head).toBeDefined();
  expect(got[3]?.head).toBeUndefined();
  await expect(hashFileStamped(path.join(dir, 'absent'))).rejects.toThrow();
});
