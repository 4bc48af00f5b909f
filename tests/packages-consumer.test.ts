// The published packages as a stranger meets them (issue 27): @hub/core-index, @hub/client and @hub/mcp are packed with
// `pnpm pack` (workspace: dependencies rewritten), installed with npm into a project under the system temp folder
// (outside this workspace, third-party dependencies from the npm registry), and each README's example is run THERE
// exactly as the README writes it: the first ```js block after "## Example", whose output must be the ```text block
// after "It prints:". The client's example downloads a demo file through a hub started from the built CLI on a free
// loopback port (the demo index, its bytes served by the demo mirror beside it on loopback).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The packages a project outside this repository installs; every other workspace package stays private. */
const PUBLISHED = ['core-index', 'client', 'mcp'] as const;
const CLI = path.join(ROOT, 'apps/node-server/dist/cli.js');
const built = [...PUBLISHED.map((p) => path.join(ROOT, 'packages', p, 'dist/index.js')), CLI].every((f) => existsSync(f));

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type: string; url: string; directory?: string };
  engines?: { node?: string };
  files?: string[];
  exports?: Record<string, { types: string; import: string }>;
  dependencies?: Record<string, string>;
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: { ...process.env, ...opts.env }, timeout: opts.timeout ?? 180_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/** The README's runnable example and the output it says the example prints. */
function readmeExample(pkg: string): { code: string; prints: string } {
  const md = readFileSync(path.join(ROOT, 'packages', pkg, 'README.md'), 'utf8');
  const from = md.indexOf('\n## Example\n');
  if (from === -1) throw new Error(`packages/${pkg}/README.md has no "## Example" section`);
  const code = /\n```js\n([\s\S]*?)\n```\n/.exec(md.slice(from))?.[1];
  const after = md.indexOf('It prints:', from);
  const prints = after === -1 ? undefined : /\n```text\n([\s\S]*?)\n```\n/.exec(md.slice(after))?.[1];
  if (!code || !prints)
    throw new Error(`packages/${pkg}/README.md: the example needs a \`\`\`js block and, after "It prints:", a \`\`\`text block`);
  return { code, prints };
}

let work: string;
let project: string;
let hub: ChildProcess | undefined;
let hubUrl: string;

/** Start `hub serve` from the built CLI on a free port (port 0) and read its address from the start log line. */
function startHub(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', data], {
      cwd: work,
      env: { ...process.env, HUB_LOG_LEVEL: 'info', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    hub = child;
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the hub did not start in 90 s:\n${out.slice(-2000)}`)), 90_000);
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-8000);
      // whole lines only (a chunk may end inside one); the start line is JSON with `listening` and `url`
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"listening"')) continue;
        let url: string | undefined;
        try {
          url = (JSON.parse(line) as { url?: string }).url;
        } catch {
          url = undefined;
        }
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-8000);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the hub exited (${code}) before listening:\n${out.slice(-2000)}`));
    });
  });
}

beforeAll(async () => {
  if (!built) return;
  work = await mkdtemp(path.join(os.tmpdir(), 'hub-consumer-'));
  const tarballs = path.join(work, 'tarballs');
  project = path.join(work, 'project');
  await mkdir(project, { recursive: true });
  const hubStarting = startHub(path.join(work, 'hub-data'));
  // hold the rejection until it is awaited below (packing and installing come first)
  hubStarting.catch(() => {});
  for (const p of PUBLISHED) {
    await run('npx', ['--yes', 'pnpm@10', 'pack', '--pack-destination', tarballs], { cwd: path.join(ROOT, 'packages', p) });
  }
  const files = (await readdir(tarballs)).filter((f) => f.endsWith('.tgz')).map((f) => path.join(tarballs, f));
  await writeFile(path.join(project, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`);
  // the MCP client half of @hub/mcp's example: the SDK at the range @hub/mcp itself depends on
  const sdk = `@modelcontextprotocol/sdk@${manifest(path.join(ROOT, 'packages/mcp')).dependencies?.['@modelcontextprotocol/sdk']}`;
  await run('npm', ['install', ...files, sdk, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: project,
    env: { npm_config_loglevel: 'error' },
  });
  hubUrl = await hubStarting;
}, 300_000);

afterAll(async () => {
  if (hub && hub.exitCode === null) {
    const exited = new Promise((r) => hub?.once('exit', r));
    hub.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (hub.exitCode === null) hub.kill('SIGKILL');
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(!built)('the published packages, packed and installed with npm outside the workspace (needs the build)', () => {
  it.each(PUBLISHED)('@hub/%s installs as a publishable package: licence, repository, engines, dist only', async (p) => {
    const installed = path.join(project, 'node_modules', '@hub', p);
    const m = manifest(installed);
    expect(m.private).toBeUndefined();
    expect(m.license).toBe('MIT');
    expect(m.engines?.node).toBe('>=20');
    expect(m.repository).toMatchObject({ type: 'git', directory: `packages/${p}` });
    for (const [entry, target] of Object.entries(m.exports ?? {})) {
      expect(target.import, entry).toMatch(/^\.\/dist\//);
      expect(existsSync(path.join(installed, target.import)), `${entry} → ${target.import}`).toBe(true);
      expect(existsSync(path.join(installed, target.types)), `${entry} → ${target.types}`).toBe(true);
    }
    const shipped = await readdir(installed);
    expect(shipped.sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
    // what it depends on among our packages is published too, at the version packed (pnpm rewrote workspace:*)
    for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
      if (!dep.startsWith('@hub/')) continue;
      expect(PUBLISHED.map((x) => `@hub/${x}`)).toContain(dep);
      expect(range).toBe(manifest(path.join(ROOT, 'packages', dep.slice(5))).version);
    }
  });

  it('@hub/core-index: the README example builds an index, opens it and resolves a file', async () => {
    const { code, prints } = readmeExample('core-index');
    await writeFile(path.join(project, 'core-index-example.mjs'), code);
    const out = await run(process.execPath, ['core-index-example.mjs'], { cwd: project, timeout: 60_000 });
    expect(out.trimEnd()).toBe(prints);
  });

  it('@hub/client: the README example downloads and verifies a demo file through a running hub', async () => {
    const { code, prints } = readmeExample('client');
    await writeFile(path.join(project, 'client-example.mjs'), code);
    const out = await run(process.execPath, ['client-example.mjs'], { cwd: project, env: { HUB_URL: hubUrl }, timeout: 60_000 });
    expect(out.trimEnd()).toBe(prints);
    // the bytes on disk are the demo file's, whose SHA-256 the hub's tree lists
    const written = await readFile(path.join(project, 'out', 'config.json'));
    const tree = (await (await fetch(`${hubUrl}/api/models/demo/tiny-bert-synthetic/tree/main`)).json()) as Array<{
      path: string;
      oid: string;
    }>;
    expect(createHash('sha256').update(written).digest('hex')).toBe(tree.find((e) => e.path === 'config.json')?.oid);
  });

  it('@hub/mcp: the README example serves createMcpHandler from node:http and calls it with the MCP SDK client', async () => {
    const { code, prints } = readmeExample('mcp');
    await writeFile(path.join(project, 'mcp-example.mjs'), code);
    const out = await run(process.execPath, ['mcp-example.mjs'], { cwd: project, timeout: 60_000 });
    expect(out.trimEnd()).toBe(prints);
  });
});

describe('which workspace packages are published', () => {
  it('only @hub/core-index, @hub/client and @hub/mcp drop private; every other package and app stays internal', async () => {
    const open: string[] = [];
    for (const group of ['packages', 'apps']) {
      for (const name of await readdir(path.join(ROOT, group))) {
        const file = path.join(ROOT, group, name, 'package.json');
        if (!existsSync(file)) continue;
        const m = JSON.parse(await readFile(file, 'utf8')) as Manifest;
        if (m.private !== true) open.push(m.name);
      }
    }
    expect(open.sort()).toEqual(PUBLISHED.map((p) => `@hub/${p}`).sort());
  });
});
