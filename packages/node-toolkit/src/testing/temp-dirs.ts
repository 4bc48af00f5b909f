import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Temporary folders for one test file: `const tmp = tempDirs(afterAll)`, then `await tmp('hub-x-')` wherever a test
 * needs one. Every folder made is removed after the file's tests. The test framework's `afterAll` is passed in (this
 * package does not depend on one); registered first, it runs after the file's other after-all hooks, so servers
 * still writing into a folder are closed before it goes.
 */
export function tempDirs(afterAll: (fn: () => Promise<void>) => void): (prefix: string) => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  return async (prefix) => {
    const d = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
