/**
 * Steps of a `hub serve` start (server.ts runs them in order): the day opened (`openIndex`), the mirrors served beside
 * the hub (`startMirrorsBeside`), and the one line for an address that cannot be had (`cannotListen`).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type Address, type Logger, SPACES_REF } from '@hub/core-index';
import { type HubDeps, indexHolder, indexStoreKind, openDay, type SourceEntry } from '@hub/hub';
import {
  DEMO_SOURCE,
  type DemoMirror,
  demoTreeDir,
  type MirrorFolderServer,
  seedBuckets,
  seedDemo,
  seedSpaces,
  serveMirrorFolder,
  startDemoMirror,
} from '@hub/node-toolkit';
import type { FsObjectStore } from '@hub/objects/node';
import { ConfigError, type HubConfigFile } from './config.js';
import { DATA_MIRROR } from './data-folder.js';
import { type MadeState, madeAnswersFrom } from './made-answers-file.js';
import { checkOrder } from './settings-check.js';
import { LOCAL_MIRROR } from './sources-config.js';
import { fileLoadPack, loadVerifiedOnce } from './verify.js';

/** A busy port or an address this machine lacks: the user's mistake, one line (exit 2), naming what to change. */
export function cannotListen(host: string, port: number, e: NodeJS.ErrnoException): ConfigError {
  const why =
    e.code === 'EADDRINUSE'
      ? 'the port is in use'
      : e.code === 'EADDRNOTAVAIL'
        ? 'this machine has no such address'
        : (e.code ?? e.message);
  return new ConfigError(`Cannot listen on ${host}:${port} (${why}). Choose another address or port: HOST/--host, PORT/--port.`);
}

/** Whether `dir` holds a mirror folder (`manifest.json`). */
export async function hasMirror(dir: string): Promise<boolean> {
  return (await stat(path.join(dir, 'manifest.json')).catch(() => undefined))?.isFile() ?? false;
}

/**
 * The index the hub serves, opened once: the `current` ref (an empty folder gets the bundled demo, spaces and buckets
 * unless the config says `demo: false`), loaded through the load pack, and `order` checked against its sources before
 * anything listens.
 */
export async function openIndex(
  objects: FsObjectStore,
  dataDir: string,
  config: HubConfigFile,
  log: Logger,
  metrics: HubDeps['metrics'],
  /** the most bytes a paged store's caches hold (the cache budget's `index` share) */
  cacheBytes: number,
): Promise<{ indexes: ReturnType<typeof indexHolder>; seeded: boolean; made: () => MadeState }> {
  let current = (await objects.readRef('current')) as Address | undefined;
  let seeded = false;
  // `order` names sources of the config, the hub's own mirrors or the index: checked before anything is written.
  const ownSources = [DEMO_SOURCE, LOCAL_MIRROR];
  if (!current) checkOrder(config, ownSources);
  if (!current && config.demo !== false) {
    // The bundled spaces first, so the demo day's archive entry records their catalog.
    if (!(await objects.readRef(SPACES_REF))) await seedSpaces(objects, log);
    await seedBuckets(objects, log);
    current = (await seedDemo(objects, log)).catalog;
    seeded = true;
  }
  if (!current) throw new Error(`No index in ${dataDir}: run "hub index build" first, or start with the demo enabled.`);
  // The one index holder (@hub/hub). Objects are verified once, on the first start on (or switch to) a catalog; later
  // starts read them as stored, from the load pack in the data folder.
  const pack = fileLoadPack(dataDir);
  // The day whole for a small index, its pages for a large one (`indexStore` / HUB_INDEX_STORE; design 11.1).
  const kind = indexStoreKind(config.indexStore, 'indexStore (or HUB_INDEX_STORE)');
  // A quarter of the index share may hold the made answers' slot table (a look-up is then one read: 16 MiB at the
  // default budget, a day of 1,000,000 models); the paged store's caches take the rest.
  const tableBytes = Math.floor(cacheBytes / 4);
  const made = madeAnswersFrom(dataDir, { log, tableBytes });
  const load = (store: FsObjectStore, address: Address) =>
    openDay(store, address, kind, () => loadVerifiedOnce(store, address, pack), { cacheBytes: cacheBytes - tableBytes, made });
  const indexes = indexHolder(objects, await load(objects, current), load, log, metrics);
  checkOrder(config, [
    ...ownSources,
    ...indexes
      .current()
      .sourceKinds()
      .map(([name]) => name),
  ]);
  return { indexes, seeded, made: made.state };
}

/** The mirrors served beside the hub, and the data folder's mirror folder (with the config's entry for it). */
export interface Beside {
  mirror?: DemoMirror;
  localMirror?: MirrorFolderServer;
  mirrorDir: string;
  configuredMirror?: SourceEntry;
}

/**
 * The servers beside the hub, on its address (so they are reached wherever the hub is: on every interface with
 * `--host 0.0.0.0`, on 127.0.0.2 with `--host 127.0.0.2`): the demo mirror when the index uses the demo's bytes, and
 * the data folder's mirror (`DIR/mirror`) unless the config names its URL. A port that cannot be had is one line.
 */
export async function startMirrorsBeside(
  options: { dataDir: string; port?: number; demoMirror?: boolean },
  config: HubConfigFile,
  host: string,
  usesDemo: boolean,
  log: Logger,
): Promise<Beside> {
  const port = options.port;
  const besideHost = host === 'localhost' ? '127.0.0.1' : host;
  let mirror: DemoMirror | undefined;
  if (usesDemo && options.demoMirror !== false) {
    const wanted = config.demoMirrorPort ?? (port ? port + 1 : 0);
    mirror = await startDemoMirror({ root: demoTreeDir(), port: wanted, host: besideHost })
      .catch(() => startDemoMirror({ root: demoTreeDir(), port: 0, host: besideHost }))
      .catch((e: NodeJS.ErrnoException) => {
        throw cannotListen(besideHost, wanted, e);
      });
    log.info({ mirror: mirror.url, tree: demoTreeDir() }, 'demo mirror serving the bundled demo bytes');
  }

  // The data folder's own mirror (`DIR/mirror`) is served on the next free port, unless the config names its URL (an
  // nginx in front of the same folder).
  let localMirror: MirrorFolderServer | undefined;
  const mirrorDir = path.join(options.dataDir, DATA_MIRROR);
  const configuredMirror = config.sources?.find((s) => s.name === LOCAL_MIRROR && s.url);
  if (!configuredMirror && (await hasMirror(mirrorDir))) {
    const wanted = config.localMirrorPort ?? (port ? port + (mirror ? 2 : 1) : 0);
    localMirror = await serveMirrorFolder({ root: mirrorDir, port: wanted, host: besideHost })
      .catch(() => serveMirrorFolder({ root: mirrorDir, port: 0, host: besideHost }))
      .catch(async (e: NodeJS.ErrnoException) => {
        await mirror?.close();
        throw cannotListen(besideHost, wanted, e);
      });
    log.info({ mirror: localMirror.url, folder: mirrorDir }, 'serving the local mirror');
  }
  return {
    ...(mirror ? { mirror } : {}),
    ...(localMirror ? { localMirror } : {}),
    mirrorDir,
    ...(configuredMirror ? { configuredMirror } : {}),
  };
}
