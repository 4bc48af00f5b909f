import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type DemoMirror, startDemoMirror } from '@hub/node-toolkit';
import { tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCommand } from '../src/cli-get.js';
import { indexBuildCommand } from '../src/cli-index.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';

/**
 * A source given only to `hub index build --source NAME=URL` (the index names it, the server's config does not):
 * health, its order and the health page list it, as the redirects do (issue 27). Over real HTTP on 127.0.0.1.
 */
const tempDir = tempDirs(afterAll);
const ID = 'acme/lan-only';
const BYTES = 'SYNTHETIC bytes held only by the lan-box source\n';
let mirror: DemoMirror;
let hub: RunningHub;

beforeAll(async () => {
  const tree = await tempDir('hub-index-sources-tree-');
  await mkdir(path.join(tree, ID), { recursive: true });
  await writeFile(path.join(tree, ID, 'weights.bin'), BYTES);
  mirror = await startDemoMirror({ root: tree });
  const data = await tempDir('hub-index-sources-data-');
  // `hub index build --from-dir TREE --source lan-box=TEMPLATE --data DATA`, as the CLI runs it
  const built = await indexBuildCommand({ 'from-dir': tree, source: [`lan-box=${mirror.template}`], data, date: '2026-11-25' });
  expect(built).toBe(0);
  hub = await startServer({
    dataDir: data,
    port: 0,
    host: '127.0.0.1',
    config: { demo: false },
    logger: createLogger({ level: 'error' }),
  });
});
afterAll(async () => {
  await hub?.close();
  await mirror?.close();
});

describe('every source the served index names is in health', () => {
  it('the redirect names lan-box, and /api/hub/health lists it (offered, not checked) and puts it in the order', async () => {
    const res = await fetch(`${hub.url}/${ID}/resolve/main/weights.bin`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('x-hub-source')).toBe('lan-box');
    const health = (await (await fetch(`${hub.url}/api/hub/health`)).json()) as {
      sources: Record<string, unknown>;
      order: string[];
    };
    expect(health.sources['lan-box']).toEqual({ ok: true, checked: null });
    expect(health.order).toContain('lan-box');
    // every source a redirect names is one health shows
    expect(Object.keys(health.sources)).toContain(res.headers.get('x-hub-source'));
  });

  it('the health page has its row: the model it holds, its place in the order, offered without a probe file', async () => {
    const html = await (await fetch(`${hub.url}/health`, { headers: { accept: 'text/html' } })).text();
    const row = html.split('\n').find((l) => l.includes('<code>lan-box</code>'));
    expect(row).toBeDefined();
    expect(row).toContain('data-label="Models held">1<');
    expect(row).toMatch(/data-label="Order">\d+</);
    expect(row).toContain('offered, not checked');
  });

  it('hub get downloads and verifies the file from lan-box, a source in the order it reads from health', async () => {
    const dir = await tempDir('hub-index-sources-get-');
    const out: string[] = [];
    const code = await getCommand([ID, 'weights.bin', '--to', dir, '--hub', hub.url], {
      out: (l) => out.push(l),
      err: (l) => out.push(l),
      tty: false,
      env: {},
    });
    expect(code, out.join('\n')).toBe(0);
    const got = await readFile(path.join(dir, 'weights.bin'));
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(BYTES).digest('hex'));
  });
});
