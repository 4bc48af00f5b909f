import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncFs } from './sync-fs.js';

// syncFs asks one kept shell for `sync -f` (sync-fs.ts): many flushes at once each get their own answer, a failing one
// rejects without spoiling the next, a folder name with a line break still flushes, and a process whose last work was
// a flush ends on its own (the shell does not keep it alive).

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-syncfs-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hasSyncF = (async () => {
  try {
    await run('sync', ['-f', os.tmpdir()]);
    return true;
  } catch {
    return false;
  }
})();

describe('syncFs', () => {
  it('answers each of many flushes asked at once, and a failing one alone', async () => {
    if (!(await hasSyncF)) return;
    const missing = path.join(dir, 'no-such-folder');
    const asked = Array.from({ length: 40 }, (_, i) =>
      syncFs(i % 10 === 3 ? missing : dir).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    const answers = await Promise.all(asked);
    expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => (i % 10 === 3 ? 'failed' : 'ok')));
    await expect(syncFs(dir)).resolves.toBeUndefined();
    await expect(syncFs(missing)).rejects.toThrow(/sync -f exited with 1/);
  });

  it('flushes a folder whose name holds a line break, and a relative one', async () => {
    if (!(await hasSyncF)) return;
    const odd = await mkdtemp(path.join(dir, 'line\nbreak-'));
    await expect(syncFs(odd)).resolves.toBeUndefined();
    await expect(syncFs(path.relative(process.cwd(), dir))).resolves.toBeUndefined();
  });

  it('lets a process whose last work was a flush end on its own', async () => {
    if (!(await hasSyncF)) return;
    // the built package (`pnpm test` builds before it runs): a process kept alive by the shell would hit the timeout
    const built = new URL('../../dist/node/index.js', import.meta.url).pathname;
    const script = `import { syncFs } from ${JSON.stringify(built)};
await syncFs(${JSON.stringify(dir)});
await syncFs(${JSON.stringify(dir)});
console.log('flushed');`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    expect(stdout.trim()).toBe('flushed');
  });
});
