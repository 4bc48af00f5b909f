import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '@hub/node-toolkit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What a `hub serve` start loads (docs/decisions/scale-and-speed.md, "A start loads what it serves"): the built CLI
 * runs in a child process with a module hook that writes down every file it loads. The binary is bundled, so a file
 * stands for every source inlined in it (the `sources` of its source map). When the hub answers /-/live, no source of
 * the MCP SDK (nor Ajv, zod-to-json-schema), Koa or jose has been loaded; the first POST /mcp, from the SDK's own
 * client, still works, and loads the SDK then.
 */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Module URLs a start must not load, each with what it is. */
const NOT_AT_START: Array<[RegExp, string]> = [
  [/\/@modelcontextprotocol\/sdk\//, 'the MCP SDK'],
  [/\/node_modules\/ajv\//, 'Ajv'],
  [/\/zod-to-json-schema\//, 'zod-to-json-schema'],
  [/\/node_modules\/koa\//, 'Koa'],
  [/\/node_modules\/@koa\/router\//, '@koa/router'],
  [/\/node_modules\/jose\//, 'jose'],
  // zod imported by name (core-index's and the MCP tools' zod.ts): its translations are dropped with the `z` namespace
  [/\/zod\/v4\/locales\/(?!en\.)/, "zod's translations (all of zod kept)"],
];

let dir: string;
let child: ChildProcess | undefined;
let base: string;
let loadedFile: string;

/** A loaded file and the sources inlined in it (its source map's `sources`, resolved against it). */
function modulesIn(url: string): string[] {
  if (!url.startsWith('file:')) return [url];
  try {
    const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as { sources?: string[] };
    return [url, ...(map.sources ?? []).map((source) => new URL(source, url).href)];
  } catch {
    return [url];
  }
}
const loaded = () => [...new Set(readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean).flatMap(modulesIn))];

async function waitLive(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child?.exitCode !== null) throw new Error(`hub serve exited with ${child?.exitCode}`);
    const ok = await fetch(`${url}/-/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('hub serve did not answer /-/live within 60 s');
}

beforeAll(async () => {
  if (!existsSync(CLI)) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-start-modules-'));
  loadedFile = path.join(dir, 'loaded.txt');
  await writeFile(loadedFile, '');
  // The hook runs on the loader's own thread; it appends each URL as it is loaded (synchronously, so none is lost).
  const hooks = path.join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(loadedFile)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  const register = path.join(dir, 'register.mjs');
  await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(register).href,
      CLI,
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data',
      path.join(dir, 'data'),
    ],
    { env: { ...process.env, HUB_LOG_LEVEL: 'warn', HUB_CONFIG: '' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await waitLive(base);
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CLI))('the modules a hub serve start loads (needs the built CLI: pnpm test builds first)', () => {
  it('answers /-/live and /-/ready without having loaded the MCP SDK, Ajv, Koa, jose or all of zod', async () => {
    const ready = (await (await fetch(`${base}/-/ready`)).json()) as { ok: boolean; models: number };
    expect(ready.ok).toBe(true);
    expect(ready.models).toBeGreaterThan(0);
    const urls = loaded();
    // the hook sees the start's modules and what is inlined in them: the server's own code, the /mcp routes, zod
    expect(urls.some((u) => u.includes('/apps/node-server/src/server.ts'))).toBe(true);
    expect(urls.some((u) => u.includes('/packages/mcp/'))).toBe(true);
    expect(urls.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
    for (const [pattern, what] of NOT_AT_START) {
      const found = urls.filter((u) => pattern.test(u));
      expect(found, what).toEqual([]);
    }
  });

  it('the first POST /mcp after the cold start works (the SDK client: initialize, tools/list, a tool call), and loads the SDK then', async () => {
    const client = new Client({ name: 'hub-start-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      expect(client.getServerVersion()?.name).toBe('model-hub');
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('get_download');
      const found = (await client.callTool({ name: 'hub_repo_search', arguments: { query: 'tiny', limit: 5 } })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
      expect(found.isError).not.toBe(true);
      expect(found.content[0]?.text).toMatch(/tiny/);
    } finally {
      await client.close();
    }
    expect(loaded().some((u) => /\/@modelcontextprotocol\/sdk\//.test(u))).toBe(true);
  });
});
