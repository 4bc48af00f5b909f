import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Address, type Hub, type IndexStore, type Logger, parsePolicy, SourceProber, SPACES_REF } from '@hub/core-index';
import { assembleHub, type HubDeps, indexHolder, indexStoreKind, openDay, type SourceEntry } from '@hub/hub';
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
import { FsObjectStore } from '@hub/objects/node';
import { installFastBlake3 } from './blake3-node.js';
import { ConfigError, type HubConfigFile } from './config.js';
import { DATA_MIRROR, IMPORTED_FILE } from './data-folder.js';
import { hostRoutes } from './host-routes.js';
import { hubHttpServer } from './hub-http-server.js';
import { DEFAULT_HOST, listenOn } from './listen.js';
import { createLogger } from './logger.js';
import { type MetricsServer, observabilityFrom } from './metrics-http.js';
import { watchMirrorManifest } from './mirror-watch.js';
import { FileMissingLog } from './missing-log.js';
import { hubListener } from './node-listener.js';
import { fileProbeStorage, probeSettingsFrom } from './prober.js';
import { shareProbes } from './replicas.js';
import { checkConfig, checkOrder, hostPolicyOf } from './settings-check.js';
import { LOCAL_MIRROR, sourcesFromConfig } from './sources-config.js';
import { openAccounts } from './stores/open-accounts.js';
import { fileLoadPack, loadVerifiedOnce } from './verify.js';

export const MAX_MESSAGE_BYTES = 33_554_432;

export interface StartOptions {
  dataDir: string;
  port?: number;
  /** The address to listen on (default 127.0.0.1, loopback; `0.0.0.0` for every interface). */
  host?: string;
  config?: HubConfigFile;
  logger?: Logger;
  /** Start the demo mirror (when the demo index is in use). Default true. */
  demoMirror?: boolean;
}

export interface RunningHub {
  /** A URL this machine reaches the hub by (`http://127.0.0.1:PORT`; a wildcard address is reached over loopback). */
  url: string;
  port: number;
  /** The address actually bound, `address:port` (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`). */
  listening: string;
  mirror?: DemoMirror;
  /** the data folder's local mirror (`DIR/mirror`, filled by `hub bundle import`), served on the next port */
  localMirror?: MirrorFolderServer;
  /** The separate metrics listener (`metricsPort`), when configured. */
  metrics?: MetricsServer;
  deps: HubDeps;
  hub: Hub;
  /** The source prober, which is also the hub's source health (its timer starts after listen). */
  prober: SourceProber;
  /** Re-read the `current` ref and swap in that index without a restart. */
  reload(): Promise<IndexStore>;
  close(): Promise<void>;
}

/** A busy port or an address this machine lacks: the user's mistake, one line (exit 2), naming what to change. */
function cannotListen(host: string, port: number, e: NodeJS.ErrnoException): ConfigError {
  const why =
    e.code === 'EADDRINUSE'
      ? 'the port is in use'
      : e.code === 'EADDRNOTAVAIL'
        ? 'this machine has no such address'
        : (e.code ?? e.message);
  return new ConfigError(`Cannot listen on ${host}:${port} (${why}). Choose another address or port: HOST/--host, PORT/--port.`);
}

/** Whether `dir` holds a mirror folder (`manifest.json`). */
async function hasMirror(dir: string): Promise<boolean> {
  return (await stat(path.join(dir, 'manifest.json')).catch(() => undefined))?.isFile() ?? false;
}

/** Wire the hub's interfaces to the filesystem, load (or seed) the index, and listen. */
export async function startServer(options: StartOptions): Promise<RunningHub> {
  installFastBlake3();
  const host = options.host ?? DEFAULT_HOST;
  const config = options.config ?? {};
  const log = options.logger ?? createLogger({ level: config.logLevel ?? 'info' });
  // A key, value, source entry or probe setting that cannot work fails the start (ConfigError), before anything is opened.
  checkConfig(config);
  const probeSettings = probeSettingsFrom(config);
  // Metrics and the access log (issue 28): the sink every part emits to; nothing is measured when both are off.
  const observability = await observabilityFrom(config, log, probeSettings.intervalSeconds);
  const objects = new FsObjectStore(options.dataDir);

  const { indexes, seeded } = await openIndex(objects, options.dataDir, config, log, observability.metrics);

  // Accounts: PostgreSQL when `database` names one, else one SQLite file under the data folder; without
  // account.publicKey the routes answer 503.
  const accountStore = await openAccounts(config, options.dataDir, log);
  const accounts = accountStore.services;

  // A data folder filled by `hub bundle import` is air-gapped unless the config says otherwise.
  const airGapped = config.airGapped ?? !!(await stat(path.join(options.dataDir, IMPORTED_FILE)).catch(() => undefined));
  // The demo mirror serves the demo bytes whenever the index holds models sourced from it.
  const usesDemo =
    !airGapped &&
    indexes
      .current()
      .sourceKinds()
      .some(([name]) => name === DEMO_SOURCE);
  const { mirror, localMirror, mirrorDir, configuredMirror } = await startMirrorsBeside(options, config, host, usesDemo, log);
  const ownMirror = localMirror
    ? { url: localMirror.url, beside: true }
    : configuredMirror?.url
      ? { url: configuredMirror.url, beside: false }
      : undefined;
  const sources = sourcesFromConfig(config, mirror, ownMirror, airGapped);
  const mirrors = sources.filter((s) => s.kind === 'mirror').map((s) => s.name);
  const order = config.order ?? [
    // mirrors first (an operator's local copy), then the demo mirror, then the rest as configured
    ...mirrors,
    ...(mirror ? [DEMO_SOURCE] : []),
    ...sources.map((s) => s.name).filter((n) => n !== DEMO_SOURCE && !mirrors.includes(n)),
  ];
  const background = new Set<Promise<unknown>>();
  // Probes: the last results (data folder) are restored before listening; rounds run on a timer after it.
  const health = new SourceProber({
    sources,
    order,
    settings: probeSettings,
    storage: fileProbeStorage(options.dataDir, log),
    log,
    metrics: observability.metrics,
  });
  await health.load();
  // Several processes on this data folder: one runs the probe rounds, the others follow its probes.json (replicas.ts).
  const probes = await shareProbes(health, options.dataDir, {
    ...(config.leaseSeconds !== undefined ? { leaseSeconds: config.leaseSeconds } : {}),
    log,
  });
  // What each mirror holds is known before the first request (its manifest read, one held file hashed); a process that
  // follows another's rounds reads it from there.
  if (mirrors.length > 0 && probes.held) await health.round({ force: true, only: mirrors });
  // The data folder's mirror is re-read as soon as its manifest changes (a `hub mirror verify` moving a file aside), by
  // the process that runs the probe rounds; the others read the result from probes.json.
  const mirrorWatch =
    ownMirror && (await hasMirror(mirrorDir))
      ? watchMirrorManifest(
          mirrorDir,
          () => {
            if (!probes.held) return;
            void health
              .round({ force: true, only: [LOCAL_MIRROR] })
              .catch((e: unknown) => log.warn({ err: String(e) }, 'mirror re-read failed'));
          },
          log,
        )
      : undefined;

  // The one host policy (design 10.1): Host syntax, the loopback rule, a trusted proxy, the origin of absolute URLs.
  const policy = hostPolicyOf(config, host);
  const { baseUrl } = policy;
  const { hub, deps } = assembleHub({
    index: indexes,
    health,
    objects,
    missing: new FileMissingLog(options.dataDir),
    accounts,
    log,
    metrics: observability.metrics,
    now: () => Date.now(),
    // Background work (the missing log, …) is kept until it settles, so close() can let it finish its writes.
    defer: (p) => {
      const guarded = p.catch((e: unknown) => log.warn({ err: String(e) }, 'background task failed'));
      background.add(guarded);
      void guarded.finally(() => background.delete(guarded));
    },
    // Every source the index names is in health (assembleHub); air-gapped, the ones no config lists (with their own
    // URL templates) are unreachable from here and never redirected to.
    ...(airGapped ? { indexSourceFields: { redirect: false } } : {}),
    settings: {
      ...(baseUrl ? { baseUrl } : {}),
      publisherTokens: config.publisherTokens ?? [],
      registryTokens: config.registryTokens ?? [],
      maxRequestBytes: MAX_MESSAGE_BYTES,
      ...(config.bucketMaxBytes !== undefined ? { bucketMaxBytes: config.bucketMaxBytes } : {}),
      ...(config.account?.siteOrigin ? { siteOrigin: config.account.siteOrigin } : {}),
      // checked when the config was read (config.ts): refused files answer 403 PolicyRefused on every dialect
      policy: parsePolicy(config.policy),
      role: 'server',
      serverId: `node-server@${os.hostname()}`,
    },
  });

  // The 5xx series HubErrors5xx sums and each source's probe series, shown at 0 from the first scrape.
  observability.prom?.declare({ routes: hub.routes, sources: sources.map((s) => s.name) });
  // Hub paths go to the hub; the host's own `/-/` routes (liveness, readiness) are answered beside it, without Koa
  // (host-routes.ts). Node checks the header and request timeouts on `connectionsCheckingInterval` (its default, 30 s,
  // would stretch them).
  const own = hostRoutes(() => indexes.current());
  const server = hubHttpServer(observability.wrap(hubListener(hub, own, policy)), config, log);
  const bound = await listenOn(server, options.port ?? 8080, host).catch(async (e: NodeJS.ErrnoException) => {
    await mirror?.close();
    await localMirror?.close();
    mirrorWatch?.close();
    await probes.stop();
    await accountStore.close();
    throw cannotListen(host, options.port ?? 8080, e);
  });
  const { port, url } = bound;
  const metricsServer = await observability.listen(server).catch(async (e: unknown) => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  });
  log.info(
    {
      listening: bound.listening,
      url,
      data: options.dataDir,
      catalog: indexes.current().catalogAddress,
      models: indexes.current().totals.models,
      seeded,
      mirror: mirror?.url,
      metrics: metricsServer?.url,
    },
    'hub listening',
  );
  probes.begin();

  return {
    url,
    port,
    listening: bound.listening,
    ...(mirror ? { mirror } : {}),
    ...(localMirror ? { localMirror } : {}),
    ...(metricsServer ? { metrics: metricsServer } : {}),
    deps,
    hub,
    prober: health,
    reload: () => indexes.reload(),
    async close() {
      mirrorWatch?.close();
      await probes.stop();
      await health.stop();
      // The metrics port first: it hands its connections to `server`.
      await metricsServer?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // No request is in flight any more: let the background work they started finish writing to the data folder.
      await Promise.allSettled([...background]);
      await mirror?.close();
      await localMirror?.close();
      await accountStore.close();
    },
  };
}

/**
 * The index the hub serves, opened once: the `current` ref (an empty folder gets the bundled demo, spaces and buckets
 * unless the config says `demo: false`), loaded through the load pack, and `order` checked against its sources before
 * anything listens.
 */
async function openIndex(
  objects: FsObjectStore,
  dataDir: string,
  config: HubConfigFile,
  log: Logger,
  metrics: HubDeps['metrics'],
): Promise<{ indexes: ReturnType<typeof indexHolder>; seeded: boolean }> {
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
  const load = (store: FsObjectStore, address: Address) => openDay(store, address, kind, () => loadVerifiedOnce(store, address, pack));
  const indexes = indexHolder(objects, await load(objects, current), load, log, metrics);
  checkOrder(config, [
    ...ownSources,
    ...indexes
      .current()
      .sourceKinds()
      .map(([name]) => name),
  ]);
  return { indexes, seeded };
}

/**
 * The servers beside the hub, on its address (so they are reached wherever the hub is: on every interface with
 * `--host 0.0.0.0`, on 127.0.0.2 with `--host 127.0.0.2`): the demo mirror when the index uses the demo's bytes, and
 * the data folder's mirror (`DIR/mirror`) unless the config names its URL. A port that cannot be had is one line.
 */
async function startMirrorsBeside(
  options: StartOptions,
  config: HubConfigFile,
  host: string,
  usesDemo: boolean,
  log: Logger,
): Promise<{ mirror?: DemoMirror; localMirror?: MirrorFolderServer; mirrorDir: string; configuredMirror?: SourceEntry }> {
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
