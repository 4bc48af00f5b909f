import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const GO_SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tlogcheck', 'main.go');

/**
 * Build fixtures/tlogcheck (Go's own golang.org/x/mod/sumdb/note and sumdb/tlog, from Debian's golang-go and
 * golang-golang-x-mod-dev) offline in `dir` (GOPATH mode, no module download) and return a runner of it:
 * `check(prefix, old?)` verifies the log under `prefix` with `vkey`, exit code and output.
 */
export async function buildTlogCheck(dir: string, vkey: string) {
  await copyFile(GO_SOURCE, path.join(dir, 'main.go'));
  const bin = path.join(dir, 'tlogcheck');
  await run('go', ['build', '-o', bin, '.'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GO111MODULE: 'off',
      GOPATH: '/usr/share/gocode',
      GOCACHE: path.join(dir, 'cache'),
      GOFLAGS: '',
    },
  });
  return async (prefix: string, old?: string): Promise<{ code: number; out: string }> => {
    try {
      const { stdout } = await run(bin, ['-prefix', prefix, '-vkey', vkey, ...(old ? ['-old', old] : [])], { maxBuffer: 16 << 20 });
      return { code: 0, out: stdout };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout + err.stderr };
    }
  };
}
