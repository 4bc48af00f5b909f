/**
 * Test harness for the edge: bundle the Worker from the workspace sources (no build needed, as the
 * vitest aliases), run it under workerd with Miniflare (shipped with wrangler), and seed its R2
 * bucket with the bundled demo index built by @hub/node-toolkit's builder.
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryObjectStore, ObjectStore } from '@hub/core-index';
// @ts-expect-error: a plain .mjs shared with tsup.config.ts
import { WORKER_CONDITIONS, WORKER_MAIN_FIELDS } from '../scripts/worker-build.mjs';
import type { R2BucketLike } from '../src/bindings.js';

/** What the test across both hosts (tests/one-prober.test.ts) reads of the Worker: its handler and its bindings. */
export type { Env, KVNamespaceLike, R2BucketLike } from '../src/bindings.js';
export { default as worker } from '../src/worker.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const EDGE_DIR = path.join(here, '..');
const ROOT = path.join(EDGE_DIR, '..', '..');
const PACKAGES = ['core-index', 'objects', 'dialect-hf', 'dialect-oci', 'mcp', 'account', 'hub'];

/** The parts of Miniflare the tests use (a dependency of wrangler, not of this app, so typed here). */
export interface MiniflareLike {
  ready: Promise<URL>;
  dispose(): Promise<void>;
  getR2Bucket(name: string): Promise<unknown>;
  getD1Database(name: string): Promise<unknown>;
  getKVNamespace(name: string): Promise<{ get(key: string): Promise<string | null> }>;
  getCaches(): Promise<{ default: unknown }>;
  unsafeGetDirectURL(workerName?: string): Promise<URL>;
  getWorker(): Promise<{ scheduled(options: { cron: string }): Promise<unknown> }>;
}

/** Miniflare, resolved through wrangler (which depends on it). */
export async function loadMiniflare(): Promise<{ Miniflare: new (options: Record<string, unknown>) => MiniflareLike }> {
  const wrangler = realpathSync(path.join(EDGE_DIR, 'node_modules', 'wrangler', 'package.json'));
  return import(createRequire(wrangler).resolve('miniflare'));
}

interface EsbuildPluginBuild {
  onResolve(options: { filter: RegExp }, fn: (args: { path: string }) => { path: string } | undefined): void;
}

/** esbuild, resolved through tsup (the build tool). */
async function loadEsbuild(): Promise<{ build(options: Record<string, unknown>): Promise<unknown> }> {
  const tsup = createRequire(path.join(ROOT, 'package.json')).resolve('tsup');
  return import(createRequire(tsup).resolve('esbuild'));
}

/**
 * Bundle src/worker.ts as tsup does (ESM, platform neutral, everything inlined), with `@hub/*`
 * taken from the packages' sources. Returns the bundle's path, text and size.
 */
export async function bundleWorker(outDir?: string): Promise<{ file: string; code: string; bytes: number }> {
  const esbuild = await loadEsbuild();
  const dir = outDir ?? (await mkdtemp(path.join(os.tmpdir(), 'hub-edge-bundle-')));
  const file = path.join(dir, 'worker.js');
  await esbuild.build({
    entryPoints: [path.join(EDGE_DIR, 'src', 'worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: file,
    logLevel: 'silent',
    conditions: WORKER_CONDITIONS,
    mainFields: WORKER_MAIN_FIELDS,
    plugins: [
      {
        name: 'hub-sources',
        setup(build: EsbuildPluginBuild) {
          build.onResolve({ filter: /^@hub\// }, (args) => {
            const m = /^@hub\/([^/]+)(?:\/(testing|node|upstream))?$/.exec(args.path);
            if (!m || !PACKAGES.includes(m[1] as string)) return undefined;
            const sub = m[2] ? `${m[2]}/index.ts` : 'index.ts';
            return { path: path.join(ROOT, 'packages', m[1] as string, 'src', sub) };
          });
        },
      },
    ],
  });
  const code = await readFile(file, 'utf8');
  return { file, code, bytes: (await stat(file)).size };
}

/** Upload a store to R2 exactly as `pnpm --filter @hub/edge dev` does (scripts/seed.mjs). */
export async function uploadStore(from: ObjectStore, bucket: R2BucketLike): Promise<{ objects: number }> {
  // @ts-expect-error: a plain .mjs shared with the dev script
  const seed = await import('../scripts/seed.mjs');
  return seed.uploadStore(from, bucket);
}

/** The demo index (the bundled demo tree of @hub/node-toolkit), built into memory. */
export async function demoStore(): Promise<MemoryObjectStore> {
  // Exactly what `pnpm --filter @hub/edge dev` seeds (scripts/seed.mjs): the bundled spaces, the demo bucket, the
  // demo index, as node-server's first start.
  // @ts-expect-error: a plain .mjs shared with the dev script
  const seed = await import('../scripts/seed.mjs');
  const { seedBuckets, seedDemo, seedSpaces } = await import('@hub/node-toolkit');
  const { MemoryObjectStore, silentLogger } = await import('@hub/core-index');
  return (await seed.demoStore({ seedBuckets, seedDemo, seedSpaces }, { MemoryObjectStore, silentLogger })).store;
}

export interface EdgeOptions {
  /** Vars and secrets (strings or JSON values). */
  bindings?: Record<string, unknown>;
  /** Seed the R2 bucket with this store (default: the demo index). */
  store?: ObjectStore;
  port?: number;
  /**
   * Also open a socket straight to the Worker (Miniflare's `unsafeDirectSockets`), bypassing Miniflare's own entry
   * Worker, which answers 500 itself for a `Host` it cannot parse into a URL; `directUrl` is its address.
   */
  direct?: boolean;
}

export interface RunningEdge {
  url: string;
  /** With `direct`: the socket straight to the Worker. */
  directUrl?: string;
  mf: MiniflareLike;
  bundle: { file: string; bytes: number };
  close(): Promise<void>;
}

/** Bundle, start workerd with R2/D1/KV bindings as wrangler.jsonc declares them, and seed R2. */
export async function startEdge(options: EdgeOptions = {}): Promise<RunningEdge> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-edge-'));
  const bundle = await bundleWorker(dir);
  const { Miniflare } = await loadMiniflare();
  const mf = new Miniflare({
    modules: true,
    scriptPath: bundle.file,
    modulesRoot: dir,
    compatibilityDate: '2026-04-20',
    r2Buckets: ['OBJECTS'],
    d1Databases: ['ACCOUNTS'],
    kvNamespaces: ['STATE'],
    bindings: (options.bindings ?? {}) as Record<string, string>,
    host: '127.0.0.1',
    port: options.port ?? 0,
    ...(options.direct ? { unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] } : {}),
  });
  const url = (await mf.ready).origin;
  const directUrl = options.direct ? (await mf.unsafeGetDirectURL()).origin : undefined;
  const bucket = (await mf.getR2Bucket('OBJECTS')) as unknown as R2BucketLike;
  await uploadStore(options.store ?? (await demoStore()), bucket);
  return {
    url,
    ...(directUrl ? { directUrl } : {}),
    mf,
    bundle: { file: bundle.file, bytes: bundle.bytes },
    async close() {
      await mf.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
