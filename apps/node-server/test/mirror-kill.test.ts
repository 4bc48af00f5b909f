// `hub mirror pull` killed midway (SIGKILL) and run again: nothing unverified is ever at a final path, no verified
// file is fetched again, the cut file resumes with Range, and a file two models share is stored once.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRange } from '@hub/core-index';
import { buildFromDir } from '@hub/node-toolkit';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const tmp = tempDirs(afterAll);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// SYNTHETIC model files; `shared.bin` is in both models
const bytes = (n: number, k: number) => new Uint8Array(n).map((_, i) => (i * k + (i >> 9)) & 0xff);
const TREES: Record<string, Record<string, Uint8Array>> = {
  'acme/one': {
    'big.bin': bytes(4 << 20, 7),
    'config.json': new TextEncoder().encode('{"model_type":"synthetic"}\n'),
    'shared.bin': bytes(200_000, 11),
  },
  'acme/two': { 'shared.bin': bytes(200_000, 11), 'other.bin': bytes(600_000, 13) },
};
const BIG = sha256(TREES['acme/one']?.['big.bin'] as Uint8Array);

/** A byte source that logs every request; while `gate` is closed it sends big.bin's first MiB and then holds on. */
let gate = true;
const requests: Array<{ run: number; file: string; range: string | null }> = [];
let runNo = 1;
let source: http.Server;
let sourceUrl: string;
let hub: RunningHub;

beforeAll(async () => {
  const data = await tmp('mirror-kill-');
  const tree = path.join(data, 'tree');
  for (const [id, files] of Object.entries(TREES))
    for (const [p, b] of Object.entries(files)) {
      await mkdir(path.join(tree, id), { recursive: true });
      await writeFile(path.join(tree, id, p), b);
    }
  source = http.createServer((req, res) => {
    const m = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(req.url ?? '');
    const body = m ? TREES[m[1] as string]?.[decodeURIComponent(m[2] as string)] : undefined;
    if (!body) return void res.writeHead(404).end();
    requests.push({ run: runNo, file: `${m?.[1]}/${m?.[2]}`, range: req.headers.range ?? null });
    const range = parseRange(req.headers.range ?? null, body.byteLength);
    if (range === 'unsatisfiable') return void res.writeHead(416).end();
    const part = range ? body.subarray(range.start, range.end + 1) : body;
    res.writeHead(range ? 206 : 200, {
      'content-length': String(part.byteLength),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${range.start}-${range.end}/${body.byteLength}` } : {}),
    });
    if (gate && m?.[2] === 'big.bin') return void res.write(part.subarray(0, 1 << 20)); // then nothing more
    res.end(part);
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', () => r()));
  sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  await buildFromDir(new FsObjectStore(data), { dir: tree, sources: [{ name: 'slow' }], date: '2026-11-22' });
  hub = await startServer({
    dataDir: data,
    port: 0,
    host: '127.0.0.1',
    logger: createLogger({ level: 'silent' }),
    config: {
      demo: false,
      sources: [{ name: 'slow', display: 'Slow', token: 'slow', kind: 'http', url: `${sourceUrl}/{id}/resolve/{revision}/{path}` }],
    },
  });
});
afterAll(async () => {
  await hub?.close();
  source?.closeAllConnections();
  await new Promise((r) => source?.close(r));
});

function pull(dir: string): { child: ChildProcess; done: Promise<{ code: number | null; lines: string[] }> } {
  const child = spawn(process.execPath, [CLI, 'mirror', 'pull', dir, 'acme/one', 'acme/two', '--hub', hub.url, '--parallel', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c) => {
    out += String(c);
  });
  child.stderr?.on('data', (c) => {
    out += String(c);
  });
  const done = new Promise<{ code: number | null; lines: string[] }>((resolve) =>
    child.once('exit', (code) => resolve({ code, lines: out.split('\n').filter(Boolean) })),
  );
  return { child, done };
}

/** Every file at a final path (`sha256/<hex>`) hashes to its name. */
async function finalPathsVerified(dir: string): Promise<string[]> {
  const names = await readdir(path.join(dir, 'sha256')).catch(() => [] as string[]);
  for (const n of names) expect(sha256(await readFile(path.join(dir, 'sha256', n))), `sha256/${n}`).toBe(n);
  return names;
}

describe('hub mirror pull after a SIGKILL', () => {
  it('keeps verified files, resumes the cut one with Range and stores a shared file once', async () => {
    const dir = await tmp('mirror-kill-dir-');
    const first = pull(dir);
    let cut = 0;
    let held: string[] = [];
    // watch the folder while the pull runs; kill it once three files are in place and big.bin is half there
    for (let i = 0; i < 600; i++) {
      held = await finalPathsVerified(dir);
      cut = (await stat(path.join(dir, '.partial', BIG)).catch(() => undefined))?.size ?? 0;
      if (held.length >= 3 && cut >= 1 << 20) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(held.length, 'three small files verified before the kill').toBe(3);
    expect(cut).toBe(1 << 20);
    first.child.kill('SIGKILL');
    expect((await first.done).code).toBeNull();
    expect(await finalPathsVerified(dir)).not.toContain(BIG);

    gate = false;
    runNo = 2;
    const second = pull(dir);
    const { code, lines } = await second.done;
    expect(code, lines.join('\n')).toBe(0);
    const events = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const big = events.find((e) => e.event === 'file' && e.sha256 === BIG);
    expect(big).toMatchObject({ status: 'verified', resumedFrom: 1 << 20 });
    expect(events.filter((e) => e.event === 'file' && e.status === 'held')).toHaveLength(3);
    // the second run asked the source for the rest of big.bin only
    expect(requests.filter((r) => r.run === 2)).toEqual([{ run: 2, file: 'acme/one/big.bin', range: `bytes=${1 << 20}-` }]);
    // four distinct files for five paths; the manifest lists both models
    const names = await finalPathsVerified(dir);
    expect(names.sort()).toEqual([...new Set(Object.values(TREES).flatMap((t) => Object.values(t).map((b) => sha256(b))))].sort());
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.files).toHaveLength(4);
    expect(manifest.models.map((m: { id: string; files: unknown[] }) => [m.id, m.files.length])).toEqual([
      ['acme/one', 3],
      ['acme/two', 2],
    ]);
    expect(await readdir(path.join(dir, '.partial'))).toEqual([]);
  });

  it('a usage mistake is one line naming it (then the usage) and exit 2, never a stack trace', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['mirror', 'pull', '/tmp/x'], /^hub mirror pull: name models/],
      [['bundle', 'create', '/tmp/x', '--top', 'many', '--hub', 'http://127.0.0.1:9'], /^hub bundle create: --top takes a whole number/],
      [['mirror', 'pull', '/tmp/x', 'o/n', '--max-bytes', 'lots'], /^hub mirror pull: --max-bytes "lots"/],
    ];
    for (const [args, first] of cases) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr?.on('data', (c) => {
        err += String(c);
      });
      const code = await new Promise((r) => child.once('exit', r));
      expect(code, args.join(' ')).toBe(2);
      expect(err).toMatch(first);
      expect(err).not.toMatch(/\n\s+at /);
    }
  });
});
