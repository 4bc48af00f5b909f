import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type BuildInput, type BuildResult, buildIndex } from '@hub/core-index';
import { buildFromDir, type DemoMirror, startDemoMirror } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import type { HubConfigFile } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';

/** The catalog limit that cuts the catalog of {@link shardedModels} into several shards. */
export const SHARDED_CATALOG_LIMIT = 8 * 1024;

/** 120 SYNTHETIC models (made-up ids, revisions and hashes); the model at `changed` gets another revision and file. */
export function shardedModels(changed = -1) {
  return Array.from({ length: 120 }, (_, i) => {
    const hex = (i + (i === changed ? 1000 : 0)).toString(16).padStart(8, '0');
    return {
      id: `synthetic-org/model-${i}`,
      revision: hex.repeat(5),
      files: [{ path: `model-${i}.gguf`, size: 1000 + i, sha256: hex.repeat(8) }],
      row: { downloads: 120 - i, tags: ['gguf'] },
      sources: [{ source: 'mirror-a', type: 'http' as const }],
    };
  });
}

/**
 * A day of the 120 {@link shardedModels} whose catalog is cut into several shards (the limit lowered to 8 KiB), built
 * into the filesystem store at `dataDir`: what the sharded-catalog checks of verify and start read.
 */
export async function buildShardedDay(dataDir: string): Promise<{ store: FsObjectStore; built: BuildResult }> {
  const store = new FsObjectStore(dataDir);
  const built = await buildIndex(store, { date: '2026-11-24', models: shardedModels(), catalogLimit: SHARDED_CATALOG_LIMIT });
  return { store, built };
}

/** Where node-server keeps its probe results (read by the test across both hosts, tests/one-prober.test.ts). */
export { PROBES_FILE } from '../src/prober.js';

export interface TestHubOptions {
  /** Model trees to index instead of the bundled demo: `{ 'owner/name': { 'path/in/repo': bytes } }`. */
  trees?: Record<string, Record<string, Uint8Array | string>>;
  /** Extra config (sources, order, account, tokens, …). */
  config?: HubConfigFile;
  /** Reuse a data folder (to test restarts). */
  dataDir?: string;
  /** Listen address (default 127.0.0.1, a loopback address). */
  host?: string;
  /** Index date for `trees` builds. */
  date?: string;
  /** Keys that sign the transparency log's checkpoint of a `trees` build. */
  signers?: BuildInput['signers'];
}

export interface TestHub {
  /** the hub, `http://127.0.0.1:PORT` */
  url: string;
  /**
   * the byte source holding the trees' bytes (`http://localhost:PORT2`), or the demo mirror beside the hub as a client
   * of `url` is sent to it: the hub's host name with the mirror's port (`http://127.0.0.1:PORT2`)
   */
  mirrorUrl: string;
  dataDir: string;
  treeDir?: string;
  running: RunningHub;
  /** every log line the hub wrote, as text */
  logs: string[];
  close(): Promise<void>;
}

/** The value of one sample line `name{labels} value` in a Prometheus exposition, or undefined when it is absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const brace = line.indexOf('{');
    const labelText = brace === -1 || brace > name.length ? '' : line.slice(brace + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

export const TEST_SOURCE = 'test-mirror';

/**
 * Start a real hub on 127.0.0.1 (random port) over a fresh data folder. With `trees`, the trees are
 * written to disk, served by a static mirror on `localhost` (another hostname, as Ollama needs) and
 * indexed with the from-dir builder; without, the bundled demo index and its mirror are used.
 */
export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'hub-test-')));
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: destination as never });
  let mirror: DemoMirror | undefined;
  let treeDir: string | undefined;
  let config: HubConfigFile = { ...options.config };
  if (options.trees) {
    treeDir = path.join(dataDir, 'tree');
    for (const [id, files] of Object.entries(options.trees)) {
      for (const [rel, content] of Object.entries(files)) {
        const file = path.join(treeDir, id, rel);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
    mirror = await startDemoMirror({ root: treeDir });
    const store = new FsObjectStore(dataDir);
    if (!(await store.readRef('current'))) {
      await buildFromDir(store, {
        dir: treeDir,
        sources: [{ name: TEST_SOURCE }],
        date: options.date ?? '2026-11-22',
        ...(options.signers ? { signers: options.signers } : {}),
      });
    }
    config = {
      demo: false,
      ...config,
      sources: [
        { name: TEST_SOURCE, display: 'Test mirror', token: 'test', kind: 'http', url: mirror.template },
        ...(config.sources ?? []),
      ],
      order: config.order ?? [TEST_SOURCE],
    };
  }
  const running = await startServer({ dataDir, port: 0, host: options.host ?? '127.0.0.1', config, logger });
  const demo = running.mirror ? `http://${new URL(running.url).host.replace(/:\d+$/, '')}:${running.mirror.port}` : '';
  const mirrorUrl = mirror?.url ?? demo;
  return {
    url: running.url,
    mirrorUrl,
    dataDir,
    ...(treeDir ? { treeDir } : {}),
    running,
    logs,
    async close() {
      await running.close();
      await mirror?.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a `hub` command run as its own process answered. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the built `hub` (dist/cli.js) with `args`, its settings from the arguments only (no HUB_* of this process);
 * `input`, when given, is its standard input.
 */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliRun> {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, HUB_LOG_LEVEL: 'warn', HUB_DEBUG: '', HUB_CONFIG: '', HUB_DATA: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}
