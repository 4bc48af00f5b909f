import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { addressOf } from '@hub/core-index';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * A folder published as a space with the real CLI (`hub spaces put`, a child process over HTTP),
 * opened in headless Chromium: it runs, logs no error, and its sandbox keeps it out of the site's
 * storage; the sealed URL keeps answering the version it names after the space changes.
 */

const run = promisify(execFile);
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'space-publisher-token';

let hub: TestHub;
let browser: Browser;
const dirs: string[] = [];

async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, HUB_LOG_LEVEL: 'warn' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const INDEX = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>probe</title></head>
<body><p id="storage">pending</p><p id="origin"></p><p id="version">v1</p>
<script src="lib/app.js"></script></body></html>
`;
const APP = `let storage;
try {
  storage = 'read:' + String(window.localStorage.getItem('site-secret'));
} catch (e) {
  storage = 'blocked:' + e.name;
}
document.getElementById('storage').textContent = storage;
document.getElementById('origin').textContent = String(self.origin);
`;

beforeAll(async () => {
  hub = await startTestHub({ config: { publisherTokens: [TOKEN] } });
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CLI))('hub spaces put, then Chromium opens the space (needs the built CLI: pnpm test builds first)', () => {
  it('publishes a folder; the page runs sandboxed; the sealed URL survives a new version', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-space-'));
    dirs.push(dir);
    await writeFile(path.join(dir, 'index.html'), INDEX);
    await import('node:fs/promises').then((fs) => fs.mkdir(path.join(dir, 'lib')));
    await writeFile(path.join(dir, 'lib', 'app.js'), APP);
    await writeFile(path.join(dir, '.DS_Store'), 'left out');

    const denied = await cli(['spaces', 'put', dir, '--name', 'probe', '--token', 'wrong', '--url', hub.url]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('401');

    const put = await cli(['spaces', 'put', dir, '--name', 'probe', '--title', 'Probe', '--token', TOKEN, '--url', hub.url]);
    expect(put.code, put.stderr).toBe(0);
    const v1 = JSON.parse(put.stdout);
    expect(v1).toMatchObject({ name: 'probe', changed: true, files: 2, uploaded: 2, url: `${hub.url}/spaces/probe/` });
    expect(v1.root).toMatch(/^blake3:[0-9a-f]{64}$/);
    // The root is the address of the space object, which the objects dialect serves.
    const spaceBytes = new Uint8Array(await (await fetch(`${hub.url}/api/v1/objects/${v1.root}`)).arrayBuffer());
    expect(addressOf(spaceBytes)).toBe(v1.root);
    expect(JSON.parse(new TextDecoder().decode(spaceBytes)).files.map((f: { path: string }) => f.path)).toEqual([
      'index.html',
      'lib/app.js',
    ]);

    const byName = await fetch(`${hub.url}/spaces/probe/`);
    expect(byName.status).toBe(200);
    expect(byName.headers.get('content-security-policy')).toBe('sandbox allow-scripts allow-forms allow-downloads');
    expect(byName.headers.get('x-content-type-options')).toBe('nosniff');
    expect(byName.headers.get('etag')).toBe(`"${addressOf(new TextEncoder().encode(INDEX))}"`);
    const v1Bytes = await byName.text();
    expect(v1Bytes).toBe(INDEX);
    const sealed = await fetch(`${hub.url}/spaces/${v1.root}/`);
    expect(sealed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await sealed.text()).toBe(v1Bytes);
    const redirect = await fetch(`${hub.url}/spaces/probe`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/spaces/probe/');

    if (browser) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      // The site origin holds a secret in its storage ...
      await page.goto(`${hub.url}/health`);
      await page.evaluate(() => localStorage.setItem('site-secret', 'account-token'));
      // ... which the space, served from the same host, cannot read: its origin is opaque.
      await page.goto(`${hub.url}/spaces/probe`);
      expect(page.url()).toBe(`${hub.url}/spaces/probe/`);
      await page.waitForFunction(() => document.getElementById('storage')?.textContent !== 'pending');
      expect(await page.textContent('#storage')).toBe('blocked:SecurityError');
      expect(await page.textContent('#origin')).toBe('null');
      expect(errors).toEqual([]);
      await context.close();
    }

    // A changed file: a new root; the name follows it, the old sealed URL keeps the old bytes.
    await writeFile(path.join(dir, 'index.html'), INDEX.replace('>v1<', '>v2<'));
    const put2 = JSON.parse((await cli(['spaces', 'put', dir, '--name', 'probe', '--token', TOKEN, '--url', hub.url])).stdout);
    expect(put2).toMatchObject({ changed: true, uploaded: 1 });
    expect(put2.root).not.toBe(v1.root);
    expect(await (await fetch(`${hub.url}/spaces/probe/`)).text()).toContain('>v2<');
    expect(await (await fetch(`${hub.url}/spaces/${v1.root}/`)).text()).toBe(v1Bytes);
    expect(await (await fetch(`${hub.url}/spaces/${put2.root}/`)).text()).toContain('>v2<');
    // Publishing the same folder again changes nothing.
    const again = JSON.parse((await cli(['spaces', 'put', dir, '--name', 'probe', '--token', TOKEN, '--url', hub.url])).stdout);
    expect(again).toMatchObject({ root: put2.root, changed: false, uploaded: 0 });
  }, 120_000);
});
