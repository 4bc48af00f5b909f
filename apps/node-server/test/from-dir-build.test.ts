// hub index build --from-dir killed with SIGKILL while it writes objects (grouped puts, issue 18): the store stays
// consistent (hub index verify finds no fault, current still names the previous catalog, every object has its
// metadata), and the build run again ends with the catalog of an uninterrupted build.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const tmp = tempDirs(afterAll);

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, HUB_LOG_LEVEL: 'warn' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const MODELS = 1000;

/** SYNTHETIC models, as bench/synthetic-tree.mjs writes them; `day` changes every config file. */
function writeTree(tree: string, day: number) {
  for (let i = 0; i < MODELS; i++) {
    const dir = path.join(tree, `bench-org-${i % 25}`, `model-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'llama', synthetic: true, i, day }));
    writeFileSync(path.join(dir, 'README.md'), `# model-${i}\n\nSYNTHETIC benchmark model.\n`);
    writeFileSync(path.join(dir, `model-${i}-Q4_K_M.gguf`), `SYNTHETIC Q4_K_M ${i}`);
  }
}

/** Object bytes files and metadata files in a data folder. */
function objectFiles(data: string): { bytes: string[]; metas: Set<string> } {
  const bytes: string[] = [];
  const metas = new Set<string>();
  const root = path.join(data, 'objects');
  if (!existsSync(root)) return { bytes, metas };
  for (const shard of readdirSync(root)) {
    for (const name of readdirSync(path.join(root, shard))) {
      if (/^[0-9a-f]{64}$/.test(name)) bytes.push(name);
      else if (/^[0-9a-f]{64}\.meta$/.test(name)) metas.add(name.slice(0, 64));
    }
  }
  return { bytes, metas };
}

describe.skipIf(!existsSync(CLI))('hub index build --from-dir killed midway (needs the built CLI: pnpm test builds first)', () => {
  it('leaves a consistent store, and the rerun ends identical to an uninterrupted build', { timeout: 180_000 }, async () => {
    const tree = await tmp('hub-kill-tree-');
    const clean = await tmp('hub-kill-clean-');
    const killed = await tmp('hub-kill-data-');
    const args = (data: string, date: string) => [
      'index',
      'build',
      '--from-dir',
      tree,
      '--source',
      'bench=http://localhost:9/{id}/resolve/{revision}/{path}',
      '--data',
      data,
      '--date',
      date,
    ];
    writeTree(tree, 1);
    for (const data of [clean, killed]) expect((await cli(args(data, '2026-11-22'))).code).toBe(0);
    const day1 = readFileSync(path.join(killed, 'refs', 'current'), 'utf8');
    // Day 2: every model changed, so the build writes 2 new objects per model.
    writeTree(tree, 2);
    const uninterrupted = await cli(args(clean, '2026-11-23'));
    expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
    const expected = JSON.parse(uninterrupted.stdout.trim().split('\n').pop() as string);

    const had = new Set(objectFiles(killed).bytes);
    const before = had.size;
    const child = spawn(process.execPath, [CLI, ...args(killed, '2026-11-23')], {
      env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Stopped the moment 100 of the day's objects are in place, then killed: inotify tells each one as it is renamed
    // there, so the test does not scan the folder between them (a scan every 5 ms held this process while a child on
    // a loaded machine ran on to nearly the end of its day). A scan every 100 ms stops it too if events are missed.
    const placed = new Set<string>();
    let stopped = false;
    const stop = () => {
      if (!stopped) stopped = child.kill('SIGSTOP');
    };
    const watcher = watch(path.join(killed, 'objects'), { recursive: true }, (_event, name) => {
      const hex = name?.match(/^[0-9a-f]{2}\/([0-9a-f]{64})$/)?.[1];
      if (hex && !had.has(hex) && placed.add(hex).size >= 100) stop();
    });
    try {
      for (let i = 0; i < 600 && !stopped; i++) {
        await new Promise((r) => setTimeout(r, 100));
        if (!stopped && objectFiles(killed).bytes.length >= before + 100) stop();
      }
    } finally {
      watcher.close();
    }
    child.kill('SIGKILL');
    expect(await exited).toBeNull();
    const after = objectFiles(killed);
    expect(after.bytes.length).toBeGreaterThanOrEqual(before + 100);
    // killed before its day was whole: fewer objects than the uninterrupted build's (and `current` below still names day 1)
    expect(after.bytes.length).toBeLessThan(objectFiles(clean).bytes.length);
    // current still names day 1; every object on disk has its metadata (below); verify re-hashes everything: no fault.
    expect(readFileSync(path.join(killed, 'refs', 'current'), 'utf8')).toBe(day1);
    // (a .meta file, or, for a JSON object carrying its own kind, none: the store derives it; never `unknown`)
    const store = new FsObjectStore(killed);
    const unknown: string[] = [];
    for (const b of after.bytes.filter((x) => !after.metas.has(x)))
      if ((await store.meta(`blake3:${b}`))?.kind === 'unknown') unknown.push(b);
    expect(unknown).toEqual([]);
    const verified = await cli(['index', 'verify', '--data', killed]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/ 0 faults/);

    const rerun = await cli(args(killed, '2026-11-23'));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout.trim().split('\n').pop() as string).catalog).toBe(expected.catalog);
    expect(objectFiles(killed).bytes.length).toBe(objectFiles(clean).bytes.length);
    expect((await cli(['index', 'verify', '--data', killed])).code).toBe(0);
  });
});
