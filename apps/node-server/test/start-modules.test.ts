import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, hubProcesses } from './hub-process.js';

/**
 * What a `hub serve` start loads (docs/decisions/scale-and-speed.md, "A start loads what it serves"): the built CLI
 * runs in a child process with a module hook that writes down every file it loads. The binary is bundled, so a file
 * stands for every source inlined in it (the `sources` of its source map). When the hub answers /-/live, no source of
 * the MCP SDK (nor Ajv, zod-to-json-schema), Koa or jose has been loaded; the first POST /mcp, from the SDK's own
 * client, still works, and loads the SDK then.
 */

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
const loadedIn = (file: string) => [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean).flatMap(modulesIn))];
const loaded = () => loadedIn(loadedFile);

/** The modules of the publish, bucket and key commands' code: what another command must not load. */
const GROUP_CODE: Array<[RegExp, string]> = [
  [/\/packages\/objects\//, 'the publish client (objects put, spaces put)'],
  [/\/packages\/node-toolkit\/src\/spaces/, 'the space folder reader (spaces put)'],
  [/\/apps\/node-server\/src\/bucket-transfer\.ts$/, 'the bucket push and pull (buckets put, buckets get)'],
  [/\/packages\/dialect-oci\//, 'the OCI dialect (buckets put, buckets get)'],
  [/\/packages\/core-index\/src\/tlog\/note\.ts$/, "the log's key code (keys generate)"],
  [/\/apps\/node-server\/src\/log-verify\.ts$/, 'the log check (index verify --log, get --verify-log)'],
  [/\/packages\/client\/src\/download\.ts$/, 'the download client (get, verify-cache, mirror pull, bundle create)'],
  [/\/apps\/node-server\/src\/get-signature\.ts$/, 'the signature checks of get'],
];

let register: string;

/** One run of the built CLI with the hook: its exit code and every module it loaded. */
async function cliLoads(args: string[]): Promise<{ status: number | null; modules: string[] }> {
  const file = path.join(dir, `loaded-${args.join('-').replace(/[^a-z0-9-]/gi, '')}.txt`);
  await writeFile(file, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, CLI, ...args], {
    env: { ...process.env, HUB_LOADED_FILE: file, HUB_CONFIG: '', HUB_PUBLISHER_TOKEN: '', HUB_REGISTRY_TOKEN: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, modules: loadedIn(file) };
}

beforeAll(async () => {
  if (!existsSync(CLI)) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-start-modules-'));
  loadedFile = path.join(dir, 'loaded.txt');
  await writeFile(loadedFile, '');
  // The hook runs on the loader's own thread; it appends each URL as it is loaded (synchronously, so none is lost) to
  // HUB_LOADED_FILE, else to the start's file.
  const hooks = path.join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';\nconst file = process.env.HUB_LOADED_FILE || ${JSON.stringify(loadedFile)};\nexport async function load(url, context, next) {\n  appendFileSync(file, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  register = path.join(dir, 'register.mjs');
  await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  base = (
    await hubProcess({
      node: ['--import', pathToFileURL(register).href],
      args: ['--host', '127.0.0.1', '--data', path.join(dir, 'data')],
      env: { HUB_LOG_LEVEL: 'warn', HUB_CONFIG: '' },
      readyPath: '/-/live',
    })
  ).url;
}, 90_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});
// after the folder's removal above, so stopped before it (vitest runs after-hooks last registered first)
const hubProcess = hubProcesses(afterAll);

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

describe.skipIf(!existsSync(CLI))('the modules another command loads (needs the built CLI: pnpm test builds first)', () => {
  it('hub --help and hub index verify --help load none of the publish, bucket, key, log-check or download code', async () => {
    for (const args of [['--help'], ['index', 'verify', '--help']]) {
      const { status, modules } = await cliLoads(args);
      expect(status, args.join(' ')).toBe(0);
      expect(modules.some((u) => u.includes('/apps/node-server/src/cli-commands.ts'))).toBe(true);
      for (const [pattern, what] of GROUP_CODE)
        expect(
          modules.filter((u) => pattern.test(u)),
          `${args.join(' ')}: ${what}`,
        ).toEqual([]);
    }
  }, 120_000);

  it('each of those commands loads its own code when it runs (the patterns above name modules that exist)', async () => {
    const empty = path.join(dir, 'empty-space');
    mkdirSync(empty, { recursive: true });
    const key = path.join(dir, 'keys', 'log.key');
    mkdirSync(path.dirname(key), { recursive: true });
    // nothing listens on port 9 of loopback: a request fails at once, after the command's code is loaded
    const runs = [
      await cliLoads(['keys', 'generate', '--out', key, '--name', 'hub.test/api/hub/log']),
      await cliLoads(['spaces', 'put', empty, '--name', 'empty', '--token', 't', '--url', 'http://127.0.0.1:9']),
      await cliLoads(['buckets', 'get', 'nothing', path.join(dir, 'layout'), '--url', 'http://127.0.0.1:9']),
      await cliLoads([
        'index',
        'verify',
        '--log',
        'http://127.0.0.1:9/api/hub/log',
        '--key',
        'x+1+2',
        '--state',
        path.join(dir, 'seen.json'),
      ]),
      await cliLoads(['get', 'synthetic/nothing', '--hub', 'http://127.0.0.1:9', '--to', path.join(dir, 'got')]),
    ];
    expect(runs.map((r) => r.status)).toEqual([0, 2, 1, 1, 1]);
    const all = runs.flatMap((r) => r.modules);
    for (const [pattern, what] of GROUP_CODE)
      expect(
        all.some((u) => pattern.test(u)),
        what,
      ).toBe(true);
  }, 120_000);
});
