import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestHub } from './helpers.js';

const run = promisify(execFile);
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function hub(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, HUB_LOG_LEVEL: 'warn' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('the hub CLI', () => {
  it('prints help', async () => {
    const { code, stdout } = await hub(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('  index build ');
    expect(stdout).toContain('  index verify ');
  });

  it('index verify exits 0 on seeded data and 1 after one object file is corrupted', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-cli-'));
    dirs.push(dataDir);
    const seeded = await startTestHub({ dataDir });
    await seeded.close();
    const ok = await hub(['index', 'verify', '--data', dataDir]);
    expect(ok.stdout).toMatch(/0 faults/);
    expect(ok.code).toBe(0);
    // Corrupt one object file (flip a byte).
    const objectsDir = path.join(dataDir, 'objects');
    const shard = (await readdir(objectsDir))[0] as string;
    const name = (await readdir(path.join(objectsDir, shard))).find((n) => /^[0-9a-f]{64}$/.test(n)) as string;
    const file = path.join(objectsDir, shard, name);
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(file);
    bytes[0] = (bytes[0] as number) ^ 0xff;
    await writeFile(file, bytes);
    const bad = await hub(['index', 'verify', '--data', dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`FAULT blake3:${name}`);
  });

  it('index build --from-dir indexes a tree with a source template, and rejects bad arguments', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-cli-'));
    const tree = await mkdtemp(path.join(os.tmpdir(), 'hub-tree-'));
    dirs.push(dataDir, tree);
    await mkdir(path.join(tree, 'acme', 'widget', 'sub'), { recursive: true });
    await writeFile(path.join(tree, 'acme', 'widget', 'config.json'), '{"a":1}\n');
    await writeFile(path.join(tree, 'acme', 'widget', 'sub', 'w.bin'), 'abc');
    const buildArgs = [
      'index',
      'build',
      '--from-dir',
      tree,
      '--source',
      'm=http://mirror.test/{id}/{path}',
      '--data',
      dataDir,
      '--date',
      '2026-01-02',
    ];
    const built = await hub(buildArgs);
    expect(built.code).toBe(0);
    const summary = JSON.parse(built.stdout.trim().split('\n').pop() as string);
    expect(summary).toMatchObject({ models: 1, files: 2, bytes: 11, date: '2026-01-02' });
    expect(summary.catalog).toMatch(/^blake3:[0-9a-f]{64}$/);
    // Same tree, same date → same catalog address (deterministic revision and objects).
    const again = await hub(buildArgs);
    expect(JSON.parse(again.stdout.trim().split('\n').pop() as string).catalog).toBe(summary.catalog);
    expect((await hub(['index', 'verify', '--data', dataDir])).code).toBe(0);
    const noSource = await hub(['index', 'build', '--from-dir', tree, '--data', dataDir]);
    expect(noSource.code).toBe(2);
    expect(noSource.stderr).toContain('--source');
    const unknown = await hub(['frobnicate']);
    expect(unknown.code).toBe(2);
  });
});
